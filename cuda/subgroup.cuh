/* subgroup.cuh - a key's points checked on the device (k_check): each coordinate canonical
 * (below q), the point on its curve (G1: y^2 = x^3 + b; G2: the twist), and in the order-r
 * subgroup by the host's endomorphism tests (zk/curve_inst.h, CURVE_g1/g2_aff_in_group), with
 * the same constants (struct zkg_sg_consts, filled by the host from zk/curve_consts.h):
 *   BN254 G1       the curve check only (cofactor 1);
 *   BLS12-381 G1   phi(p) == -[x^2] p, phi(x, y) = (beta x, y);
 *   BN254 G2       [x+1] p + psi([x] p) + psi^2([x] p) == psi^3([2x] p);
 *   BLS12-381 G2   psi(p) == [x] p.
 * Infinity (all zero bytes) passes, as on the host. One thread per point; the lowest failing
 * index wins through one 64-bit atomicMin on (index << 1 | in-group failure), so the answer
 * (index and kind) is the host's whatever the schedule.
 * Speed: two 64-bit multiplications per BLS12-381 G1 point (|x| has six set bits), one per G2
 * point; bounded by the field products, no memory traffic beyond one read of each point. */
#pragma once
#include "cuda/engine_common.cuh"

namespace zkg
{

template <class P> ZG_DEV bool sg_canonical(const fp<P> &a)
{
#pragma unroll 1
	for (int i = fp<P>::N - 1; i >= 0; i--) {
		uint32_t p = P::p(i);
		if (a.v[i] != p)
			return a.v[i] < p;
	}
	return false; /* equal to q */
}
template <class P> ZG_DEV bool sg_canonical(const fp2<fp<P>> &a)
{
	return sg_canonical(a.c0) && sg_canonical(a.c1);
}

template <class F> ZG_DEV F sg_load(const uint64_t *p)
{
	return F::load(p);
}
template <class F> ZG_DEV F sg_load2(const uint64_t (*p)[6])
{
	using B = decltype(F::c0);
	return {B::load(p[0]), B::load(p[1])};
}

/* the curve's b for G1 (Fq) and for the twist (Fq2) */
template <class P> ZG_DEV fp<P> sg_b(const zkg_sg_consts &c, const fp<P> *)
{
	return sg_load<fp<P>>(c.b1);
}
template <class P> ZG_DEV fp2<fp<P>> sg_b(const zkg_sg_consts &c, const fp2<fp<P>> *)
{
	return sg_load2<fp2<fp<P>>>(c.b2);
}

/* a point's Jacobian form, and r + p (mixed when p is affine) */
template <class F> ZG_DEV jac_t<F> sg_jac(const aff_t<F> &p)
{
	return jac_t<F>::from_aff(p);
}
template <class F> ZG_DEV jac_t<F> sg_jac(const jac_t<F> &p)
{
	return p;
}
template <class F> ZG_DEV jac_t<F> sg_add(const jac_t<F> &r, const aff_t<F> &p)
{
	return r.add_aff(p);
}
template <class F> ZG_DEV jac_t<F> sg_add(const jac_t<F> &r, const jac_t<F> &p)
{
	return r.add(p);
}

/* [k] p by double-and-add from the top set bit (k > 0), p affine or Jacobian */
template <class Pt> ZG_DEV auto sg_mul_u64(const Pt &p, uint64_t k)
{
	auto r = sg_jac(p);
	for (int b = 62 - __clzll((long long)k); b >= 0; b--) {
		r = r.dbl();
		if ((k >> b) & 1)
			r = sg_add(r, p);
	}
	return r;
}

/* 1 when a coordinate is not below q or the point is off its curve, else 0 (infinity: 0) */
template <class F> ZG_DEV int sg_off_curve(const zkg_sg_consts &c, const aff_t<F> &a)
{
	if (!sg_canonical(a.x) || !sg_canonical(a.y))
		return 1;
	if (a.is_inf())
		return 0;
	return a.y.sqr().eq(a.x.sqr() * a.x + sg_b(c, (const F *)nullptr)) ? 0 : 1;
}

/* Jacobian equality (infinity equal only to itself) */
template <class F> ZG_DEV bool sg_eq(const jac_t<F> &a, const jac_t<F> &b)
{
	if (a.is_inf() || b.is_inf())
		return a.is_inf() && b.is_inf();
	F za = a.Z.sqr(), zb = b.Z.sqr();
	if (!(a.X * zb).eq(b.X * za))
		return false;
	return (a.Y * (zb * b.Z)).eq(b.Y * (za * a.Z));
}

template <class B> ZG_DEV fp2<B> sg_conj(const fp2<B> &a)
{
	return {a.c0, a.c1.neg()};
}

/* psi^k (k = 1, 2, 3) in Jacobian coordinates, as the host's CURVE_g2_psi */
template <class B>
ZG_DEV jac_t<fp2<B>> sg_psi(const zkg_sg_consts &c, const jac_t<fp2<B>> &p, int k)
{
	using F = fp2<B>;
	jac_t<F> r = p;
	if (k & 1)
		r = {sg_conj(p.X), sg_conj(p.Y), sg_conj(p.Z)};
	r.X = r.X * sg_load2<F>(c.psi[k - 1][0]);
	r.Y = r.Y * sg_load2<F>(c.psi[k - 1][1]);
	return r;
}

/* 0 (good), 1 (not on the curve or a coordinate not below q), 2 (not in the subgroup) */
template <class P> ZG_DEV int sg_check(const zkg_sg_consts &c, const aff_t<fp<P>> &a)
{
	using F = fp<P>;
	int r = sg_off_curve(c, a);
	if (r || a.is_inf() || c.bn)
		return r;
	/* -[x^2] p: the sign squares away */
	jac_t<F> t = sg_mul_u64(sg_mul_u64(a, c.x_abs), c.x_abs).neg();
	jac_t<F> f = jac_t<F>::from_aff(a);
	f.X = f.X * sg_load<F>(c.beta);
	return sg_eq(f, t) ? 0 : 2;
}

template <class P> ZG_DEV int sg_check(const zkg_sg_consts &c, const aff_t<fp2<fp<P>>> &a)
{
	using F = fp2<fp<P>>;
	int r = sg_off_curve(c, a);
	if (r || a.is_inf())
		return r;
	jac_t<F> m = sg_mul_u64(a, c.x_abs);
	if (c.x_neg)
		m = m.neg(); /* m = [x] p */
	if (c.bn) {
		jac_t<F> l = m.add_aff(a);
		l = l.add(sg_psi(c, m, 1));
		l = l.add(sg_psi(c, m, 2));
		jac_t<F> t = sg_psi(c, m.dbl(), 3);
		return sg_eq(l, t) ? 0 : 2;
	}
	return sg_eq(sg_psi(c, jac_t<F>::from_aff(a), 1), m) ? 0 : 2;
}

/* Points pts[0 .. n) (indices base + i): *best = min over failing i of ((base + i) << 1 |
 * (not in the subgroup)); a point above the best found so far is skipped. */
template <class A>
__global__ void k_check(zkg_sg_consts c, const A *pts, uint32_t n, uint64_t base,
			unsigned long long *best)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n || (base + i) << 1 >= *(volatile unsigned long long *)best)
		return;
	int r = sg_check(c, A::load(&pts[i]));
	if (r)
		atomicMin(best, (unsigned long long)((base + i) << 1 | (r == 2)));
}

} // namespace zkg
