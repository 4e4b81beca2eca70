/* ec.cuh - points of y^2 = x^3 + b over F (Fq for G1, Fq2 for G2), the same formulas as the
 * host's zk/ec_tmpl.h so that results are comparable. Affine points use the .zkey layout
 * (x, y; all zero is infinity); Jacobian points (X, Y, Z) have Z = 0 at infinity and the
 * same byte layout as the host's CURVE_gN_jac. */
#pragma once
#include "cuda/field.cuh"

/* Point operations are out-of-line by default: inlining them everywhere multiplies compile time
 * (minutes per kernel) for little speed. -DZKG_INLINE_POINTS inlines them. */
#ifdef ZKG_INLINE_POINTS
#define ZG_PT __device__ __forceinline__
#else
#define ZG_PT __device__ __noinline__
#endif

template <class F> struct aff_t {
	F x, y;
	static constexpr int BYTES = 2 * F::BYTES;
	ZG_DEV bool is_inf() const { return x.is_zero() && y.is_zero(); }
	static ZG_DEV aff_t load(const void *p) { return {F::load(p), F::load((const char *)p + F::BYTES)}; }
	ZG_DEV void store(void *p) const
	{
		x.store(p);
		y.store((char *)p + F::BYTES);
	}
};

template <class F> struct jac_t {
	F X, Y, Z;
	static constexpr int BYTES = 3 * F::BYTES;
	static ZG_DEV jac_t inf() { return {F::one(), F::one(), F::zero()}; }
	ZG_DEV bool is_inf() const { return Z.is_zero(); }
	static ZG_DEV jac_t load(const void *p)
	{
		const char *c = (const char *)p;
		return {F::load(c), F::load(c + F::BYTES), F::load(c + 2 * F::BYTES)};
	}
	ZG_DEV void store(void *p) const
	{
		char *c = (char *)p;
		X.store(c);
		Y.store(c + F::BYTES);
		Z.store(c + 2 * F::BYTES);
	}
	static ZG_DEV jac_t from_aff(const aff_t<F> &a)
	{
		if (a.is_inf())
			return inf();
		return {a.x, a.y, F::one()};
	}
	ZG_DEV jac_t neg() const { return {X, Y.neg(), Z}; }

	/* dbl-2009-l (a = 0) */
	ZG_PT jac_t dbl() const
	{
		if (is_inf())
			return *this;
		F A = X.sqr(), B = Y.sqr(), C = B.sqr();
		F D = (X + B).sqr() - A - C;
		D = D.dbl();
		F E = A.dbl() + A;
		F Fv = E.sqr();
		jac_t r;
		r.Z = (Y * Z).dbl();
		r.X = Fv - D - D;
		C = C.dbl().dbl().dbl();
		r.Y = E * (D - r.X) - C;
		return r;
	}

	/* this + q where both have the same x (H = 0): 2 this when S1 = S2 (rr = S2 - S1 is 0),
	 * else infinity (q = -this) */
	ZG_DEV jac_t same_x(const F &rr) const
	{
		if (rr.is_zero())
			return dbl();
		return inf();
	}

	/* add-2007-bl, infinity and p == q handled */
	ZG_PT jac_t add(const jac_t &q) const
	{
		if (is_inf())
			return q;
		if (q.is_inf())
			return *this;
		F z1z1 = Z.sqr(), z2z2 = q.Z.sqr();
		F u1 = X * z2z2, u2 = q.X * z1z1;
		F s1 = Y * q.Z * z2z2, s2 = q.Y * Z * z1z1;
		F h = u2 - u1, rr = s2 - s1;
		if (h.is_zero())
			return same_x(rr);
		rr = rr.dbl();
		F i = h.dbl().sqr();
		F j = h * i;
		F v = u1 * i;
		jac_t r;
		r.Z = ((Z + q.Z).sqr() - z1z1 - z2z2) * h;
		r.X = rr.sqr() - j - v - v;
		r.Y = rr * (v - r.X) - (s1 * j).dbl();
		return r;
	}

	/* add() computed by the four lanes of an aligned quad (lanes 4k .. 4k+3 of a warp), which
	 * must all call it with the same p and q and all get the same result, for prime fields
	 * (F::PAIRS). A warp issues the same instruction for all its lanes, so four independent
	 * products cost the time of one: the sixteen products of add() run in four rounds of up
	 * to four, each followed by an exchange of the round's products through shuffles, then
	 * Y3 = R (V - X3) - 2 S1 J computed by every lane:
	 *   1. Z1^2, Z2^2, Y1 Z2, Y2 Z1;  2. U1, U2, S1, S2;  3. I = (2H)^2, (Z1 + Z2)^2, R^2;
	 *   4. J = H I, V = U1 I, Z3 = ((Z1 + Z2)^2 - Z1^2 - Z2^2) H.
	 * The reduction's kernels are chains of additions on few warps, where a lone product's
	 * dependent multiply-adds (four cycles apart at best) set the time. The values are those
	 * of add(), every one fully reduced, so the results are identical. */
	ZG_DEV jac_t add_quad(const jac_t &q) const
	{
		static_assert(F::PAIRS, "add_quad: prime fields only");
		if (is_inf())
			return q;
		if (q.is_inf())
			return *this;
		const uint32_t l = threadIdx.x % 4, mask = 0xfu << (threadIdx.x % 32 / 4 * 4);
		auto sel = [&](const F &a0, const F &a1, const F &a2, const F &a3) {
			F r;
#pragma unroll
			for (int i = 0; i < F::N; i++)
				r.v[i] =
				    l < 2 ? (l ? a1.v[i] : a0.v[i]) : (l == 3 ? a3.v[i] : a2.v[i]);
			return r;
		};
		/* lane k's value of m (lanes numbered within the quad) */
		auto from = [&](const F &m, int k) {
			F r;
#pragma unroll
			for (int i = 0; i < F::N; i++)
				r.v[i] = __shfl_sync(mask, m.v[i], k, 4);
			return r;
		};
		F m = sel(Z, q.Z, Y, q.Y) * sel(Z, q.Z, q.Z, Z);
		F z1z1 = from(m, 0), z2z2 = from(m, 1), y1z2 = from(m, 2), y2z1 = from(m, 3);
		m = sel(X, q.X, y1z2, y2z1) * sel(z2z2, z1z1, z2z2, z1z1);
		F u1 = from(m, 0), u2 = from(m, 1), s1 = from(m, 2), s2 = from(m, 3);
		F h = u2 - u1, rr = s2 - s1;
		if (h.is_zero())
			return same_x(rr);
		rr = rr.dbl();
		F h2 = h.dbl(), zs = Z + q.Z;
		m = sel(h2, zs, rr, h2) * sel(h2, zs, rr, h2);
		F i = from(m, 0), zs2 = from(m, 1), r2 = from(m, 2);
		m = sel(h, u1, zs2 - z1z1 - z2z2, h) * sel(i, i, h, i);
		F j = from(m, 0), v = from(m, 1);
		jac_t r;
		r.Z = from(m, 2);
		r.X = r2 - j - v - v;
		r.Y = F::mul_sum(rr, v - r.X, s1.dbl().neg(), j);
		return r;
	}

	/* madd-2007-bl with q affine, infinity and p == q handled; inlined into the bucket loop.
	 * Over a prime field (F::PAIRS) the eleven products go as four pairs (see fp::mul2), one
	 * single and one sum of two products (fp::mul_sum): Z1^2 and Y2 Z1; U2 = X2 Z1Z1 and
	 * S2 = Y2 Z1 Z1Z1; H^2 and (Z1 + H)^2; R^2 (fp::sqr); H I and X1 I; Y3 = R (V - X3) - 2 Y1
	 * J with one reduction (BLS12-381 G1 bucket loop at 2^20, H200: 6.99 -> 6.93 ms). The
	 * paired squares stay products (see fp::sqr_nr on why). Over Fq2 (G2) the statements are
	 * ordered so that inputs die early (Z3 right after HH frees Z1 and Z1Z1, V = X1 I frees
	 * X1): fewer live values matter there, the G2 bucket loop runs out of registers (255 and
	 * spills). */
	ZG_DEV jac_t add_aff_inl(const aff_t<F> &q) const
	{
		if (q.is_inf())
			return *this;
		if (is_inf())
			return from_aff(q);
		if constexpr (F::PAIRS) {
			auto a = F::mul2(Z, Z, q.y, Z);
			F z1z1 = a.x;
			auto b = F::mul2(q.x, z1z1, a.y, z1z1);
			F h = b.x - X, rr = b.y - Y;
			if (h.is_zero()) {
				if (rr.is_zero())
					return dbl();
				return inf();
			}
			auto c = F::mul2(h, h, F::add_nr(Z, h), F::add_nr(Z, h));
			jac_t r;
			r.Z = c.y - z1z1 - c.x;
			rr = rr.dbl();
			F r2 = rr.sqr();
			F i = c.x.dbl().dbl();
			auto d = F::mul2(h, i, X, i); /* J, V */
			r.X = r2 - d.x - d.y - d.y;
			r.Y = F::mul_sum(rr, d.y - r.X, Y.dbl().neg(), d.x); /* R (V - X3) - 2 Y1 J */
			return r;
		}
		F z1z1 = Z.sqr();
		F h = q.x * z1z1 - X;
		F s2 = q.y * (Z * z1z1);
		F hh = h.sqr();
		jac_t r;
		r.Z = F::add_nr(Z, h).sqr() - z1z1 - hh;
		F rr = s2 - Y;
		if (h.is_zero()) {
			if (rr.is_zero())
				return dbl();
			return inf();
		}
		rr = rr.dbl();
		F i = hh.dbl().dbl();
		F j = h * i;
		F v = X * i;
		r.X = rr.sqr() - j - v - v;
		r.Y = rr * (v - r.X) - (Y * j).dbl();
		return r;
	}

	ZG_PT jac_t add_aff(const aff_t<F> &q) const { return add_aff_inl(q); }
	ZG_DEV jac_t to_jac() const { return *this; }

	ZG_PT aff_t<F> to_aff() const
	{
		if (is_inf())
			return {F::zero(), F::zero()};
		F zi = Z.inv();
		F zi2 = zi.sqr();
		return {X * zi2, Y * zi2 * zi};
	}
};

/* XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 at infinity), used only to
 * accumulate a BN254 G1 bucket: a mixed addition (madd-2008-s) costs 8 multiplications and 2
 * squarings against the Jacobian madd-2007-bl's 7 and 4 (a squaring costs a multiplication
 * here). Measured on the H200 (bucket loop of a 2^20 MSM, 15.7 M additions): BN254 G1 4.1-4.2
 * -> 3.5 ms; BLS12-381 G1 8.2 -> 11.6 ms (at 170 registers and at 255 alike: 12-limb
 * coordinates), so BLS12-381 G1 and both G2 (out of registers already) keep Jacobian buckets.
 * Tried again with the products in four pairs and Y3 as one fp::mul_sum (2026-12-01): the
 * BLS12-381 G1 loop 6.99 -> 8.05 ms, against 6.93 for Jacobian with mul_sum. Y3 = R (Q - X3) -
 * Y1 PPP as one mul_sum here: BN254 G1 loop 3.25 -> 3.06 ms. */
template <class F> struct xyzz_t {
	F X, Y, ZZ, ZZZ;
	static ZG_DEV xyzz_t inf() { return {F::one(), F::one(), F::zero(), F::zero()}; }
	ZG_DEV bool is_inf() const { return ZZ.is_zero(); }

	/* madd-2008-s with q affine; q at infinity, this at infinity, q == this (mdbl-2008-s-1)
	 * and q == -this handled */
	ZG_DEV xyzz_t add_aff_inl(const aff_t<F> &q) const
	{
		if (q.is_inf())
			return *this;
		if (is_inf())
			return {q.x, q.y, F::one(), F::one()};
		F P = q.x * ZZ - X;
		F R = q.y * ZZZ - Y;
		if (P.is_zero()) {
			if (!R.is_zero())
				return inf();
			F U = q.y.dbl(), V = U.sqr(), W = U * V, S = q.x * V;
			F M = q.x.sqr();
			M = M.dbl() + M;
			xyzz_t r;
			r.X = M.sqr() - S.dbl();
			r.Y = M * (S - r.X) - W * q.y;
			r.ZZ = V;
			r.ZZZ = W;
			return r;
		}
		F PP = P.sqr(), PPP = P * PP, Q = X * PP;
		xyzz_t r;
		r.ZZ = ZZ * PP;
		r.ZZZ = ZZZ * PPP;
		r.X = R.sqr() - PPP - Q.dbl();
		r.Y = F::mul_sum(R, Q - r.X, Y.neg(), PPP);
		return r;
	}
	/* the same point in Jacobian coordinates: (X ZZ^2, Y ZZZ^2, ZZZ) */
	ZG_DEV jac_t<F> to_jac() const
	{
		if (is_inf())
			return jac_t<F>::inf();
		return {X * ZZ.sqr(), Y * ZZZ.sqr(), ZZZ};
	}
};

/* The bucket accumulator of a point type (see xyzz_t): XYZZ for BN254 G1, Jacobian otherwise */
template <class F> struct bucket_acc {
	using type = jac_t<F>;
};
template <> struct bucket_acc<fp<bn254_fq_params>> {
	using type = xyzz_t<fp<bn254_fq_params>>;
};

