#!/usr/bin/env python3
"""gen-consts.py - derives every curve constant zk/ uses and writes zk/curve_consts.h.

Inputs are the defining parameters of each curve (moduli, curve coefficients, generators,
the BN/BLS parameter x, the quadratic non-residue used by ffjavascript for roots of unity).
Everything else is computed here with Python integers and checked with assertions (generators
on their curves and of order r, roots of unity of exact order), so the C side holds only
constants whose derivation is written down next to them.

Run: python3 scripts/gen-consts.py > zk/curve_consts.h
"""

def limbs(v, n):
    return [(v >> (64 * i)) & (2**64 - 1) for i in range(n)]

def carr(name, v, n):
    return "static const uint64_t %s[%d] = {%s};" % (
        name, n, ", ".join("0x%016xull" % x for x in limbs(v, n)))

class F2:
    """Fp2 = Fp[u]/(u^2 + 1), for checking the G2 constants."""
    def __init__(s, p, a, b): s.p, s.a, s.b = p, a % p, b % p
    def __add__(s, o): return F2(s.p, s.a + o.a, s.b + o.b)
    def __sub__(s, o): return F2(s.p, s.a - o.a, s.b - o.b)
    def __mul__(s, o): return F2(s.p, s.a * o.a - s.b * o.b, s.a * o.b + s.b * o.a)
    def __eq__(s, o): return s.a == o.a and s.b == o.b
    def inv(s):
        d = pow(s.a * s.a + s.b * s.b, s.p - 2, s.p)
        return F2(s.p, s.a * d, -s.b * d)
    def iszero(s): return s.a == 0 and s.b == 0
    def conj(s): return F2(s.p, s.a, -s.b)
    def __pow__(s, e):
        r, b = F2(s.p, 1, 0), s
        while e:
            if e & 1: r = r * b
            b = b * b; e >>= 1
        return r

def ec_add(P, Q, zero):
    """Affine addition on y^2 = x^3 + b (None is infinity); generic over field classes."""
    if P is None: return Q
    if Q is None: return P
    x1, y1 = P; x2, y2 = Q
    if x1 == x2:
        if (y1 + y2).iszero(): return None
        lam = (x1 * x1 * F(3, x1)) * (y1 + y1).inv()
    else:
        lam = (y2 - y1) * (x2 - x1).inv()
    x3 = lam * lam - x1 - x2
    return (x3, lam * (x1 - x3) - y1)

def F(v, like):
    return F2(like.p, v, 0) if isinstance(like, F2) else F1(like.p, v)

class F1:
    def __init__(s, p, a): s.p, s.a = p, a % p
    def __add__(s, o): return F1(s.p, s.a + o.a)
    def __sub__(s, o): return F1(s.p, s.a - o.a)
    def __mul__(s, o): return F1(s.p, s.a * o.a)
    def __eq__(s, o): return s.a == o.a
    def inv(s): return F1(s.p, pow(s.a, s.p - 2, s.p))
    def iszero(s): return s.a == 0

def ec_mul(P, k):
    R = None
    while k:
        if k & 1: R = ec_add(R, P, None)
        P = ec_add(P, P, None); k >>= 1
    return R

def ec_neg(P):
    return None if P is None else (P[0], F(0, P[1]) - P[1])

def ec_smul(P, k):
    return ec_mul(ec_neg(P), -k) if k < 0 else ec_mul(P, k)

def sqrt_any(a):
    """a square root of a in Fq or Fq2 (q = 3 mod 4), or None when a is not a square."""
    p = a.p
    assert p % 4 == 3
    if isinstance(a, F1):
        s = F1(p, pow(a.a, (p + 1) // 4, p))
    else:  # Adj and Rodriguez-Henriquez, "Square root computation over even extension fields", Alg. 9
        a1 = a ** ((p - 3) // 4)
        alpha, x0 = a1 * a1 * a, a1 * a
        s = F2(p, 0, 1) * x0 if alpha == F2(p, -1, 0) else (alpha + F2(p, 1, 0)) ** ((p - 1) // 2) * x0
    return s if s * s == a else None

def rand_point(like, b, rng):
    """a point on y^2 = x^3 + b (over the field of like) from random x, cofactor NOT cleared"""
    while True:
        x = F2(like.p, rng.randrange(like.p), rng.randrange(like.p)) if isinstance(like, F2) else F1(like.p, rng.randrange(like.p))
        y = sqrt_any(x * x * x + b)
        if y is not None:
            return (x, y)

def is_prime(n):
    """Miller-Rabin with 40 random bases (error < 2^-80)"""
    if n < 4: return n in (2, 3)
    d, s = n - 1, 0
    while d % 2 == 0: d, s = d // 2, s + 1
    rng = random.Random(n)
    for _ in range(40):
        a = pow(rng.randrange(2, n - 1), d, n)
        if a in (1, n - 1): continue
        for _ in range(s - 1):
            a = a * a % n
            if a == n - 1: break
        else:
            return False
    return True

def endo_res(g, t, n):
    """Res(X^2 - t X + n, g) = g(mu1) g(mu2) over the roots mu of X^2 - t X + n; g low->high"""
    g = list(g)
    while len(g) > 2:  # X^k = X^(k-2) (t X - n) modulo the quadratic
        top = g.pop()
        g[-1] += top * t
        g[-2] -= top * n
    b, a = g[0], g[1] if len(g) > 1 else 0
    return b * b + t * a * b + n * a * a

def on_curve(P, b):
    x, y = P
    return y * y == x * x * x + b

import math
import random

CURVES = [
    dict(name="bn254", snark="bn128", q=21888242871839275222246405745257275088696311157297823662689037894645226208583,
         r=21888242871839275222246405745257275088548364400416034343698204186575808495617,
         nq=4, b=3, xi=(9, 1), twist="D", x=4965661367192848881, x_neg=False,
         h2_primes=[10069, 5864401, 1875725156269, 197620364512881247228717050342013327560683201906968909],
         g1=(1, 2),
         g2=((10857046999023057135944570762232829481370756359578518086990519993285655852781,
              11559732032986387107991004021392285783925812861821192530917403151452391805634),
             (8495653923123431417604973247489272438418190587263600148770280649306958101930,
              4082367875863433681332203403145435568316851327593401208105741076214120093531))),
    dict(name="bls12_381", snark="bls12381",
         q=0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
         r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
         nq=6, b=4, xi=(1, 1), twist="M", x=0xd201000000010000, x_neg=True,
         h1_primes=[3, 11, 11, 10177, 10177, 859267, 859267, 52437899, 52437899],
         h2_primes=[13, 13, 23, 23, 2713, 11953, 262069, 402096035359507321594726366720466575392706800671181159425656785868777272553337714697862511267018014931937703598282857976535744623203249],
         g1=(0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
             0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1),
         g2=((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
              0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
             (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
              0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be))),
]

def field_block(pre, p, n, out):
    R = 2**(64 * n)
    out.append("/* %s: p = %d (%d-bit, %d limbs). R = 2^%d. */" % (pre, p, p.bit_length(), n, 64 * n))
    out.append("/* p, little-endian 64-bit limbs */")
    out.append(carr(pre + "_P", p, n))
    out.append("/* R mod p: Montgomery form of 1 */")
    out.append(carr(pre + "_ONE", R % p, n))
    out.append("/* R^2 mod p: multiplying by it converts to Montgomery form */")
    out.append(carr(pre + "_R2", R * R % p, n))
    out.append("/* -p^-1 mod 2^64: the Montgomery reduction factor */")
    out.append("static const uint64_t %s_INV = 0x%016xull;" % (pre, (-pow(p, -1, 2**64)) % 2**64))
    out.append("/* p - 2, the exponent of inversion by Fermat's little theorem */")
    out.append(carr(pre + "_PM2", p - 2, n))
    return R

def subgroup_block(c, nm, xi, b2, g1, g2, Fq, mq, out):
    """Constants of the endomorphism subgroup tests (zk/curve_inst.h), and the proof that each
    test is exact. A test is "g(e)(P) == 0" for an endomorphism e with e(P) = lam P on the
    order-r subgroup and a polynomial g. On every l-torsion E[l] (l != q) e satisfies its
    characteristic polynomial chi (psi: X^2 - t X + q, conjugate to the q-Frobenius; phi:
    X^2 + X + 1), so det g(e)|E[l] = Res(chi, g) mod l. Hence g(e) is injective on the l-part
    of the group for every prime l dividing the cofactor h when gcd(Res(chi, g), h) = 1; with
    r not dividing h (the r-part is the cyclic group generated by G) and g(lam) = 0 mod r, the
    kernel of g(e) on E(F) is exactly the order-r subgroup. All of this is asserted below."""
    q, r, x, nq = c["q"], c["r"], c["x"], c["nq"]
    xs = -x if c["x_neg"] else x
    rng = random.Random(20211130 + nq)  # fixed: the output is reproducible
    t = q + 1 - r if c["name"] == "bn254" else xs + 1  # trace of E(Fq): #E(Fq) = q + 1 - t
    n1 = q + 1 - t
    assert n1 % r == 0
    # the twist's order: the one of the six sextic-twist orders q^2 + 1 - tau divisible by r
    # that kills random points of E'(Fq2) (t2 = trace over Fq2, t2^2 - 4 q^2 = -3 f^2)
    t2 = t * t - 2 * q
    f = math.isqrt((4 * q * q - t2 * t2) // 3)
    assert 3 * f * f == 4 * q * q - t2 * t2
    taus = {t2, -t2, (t2 + 3 * f) // 2, (t2 - 3 * f) // 2, (-t2 + 3 * f) // 2, (-t2 - 3 * f) // 2}
    pts = [rand_point(b2, b2, rng) for _ in range(3)]
    n2 = [q * q + 1 - tau for tau in taus if (q * q + 1 - tau) % r == 0
          and all(ec_mul(P, q * q + 1 - tau) is None for P in pts)]
    assert len(n2) == 1
    n2 = n2[0]
    h1, h2 = n1 // r, n2 // r
    for h, pr in ((h1, c.get("h1_primes", [])), (h2, c["h2_primes"])):
        assert math.prod(pr) == h and all(is_prime(l) for l in pr)
        assert h % r != 0 and h % q != 0  # the r-part is cyclic (= G), no q-torsion
    out.append("/* cofactors h = #E/r of G1 (#E(Fq) = q + 1 - t) and G2 (#E'(Fq2), the sextic twist")
    out.append(" * order divisible by r that kills random points), plain limbs, and a small prime of")
    out.append(" * each (tests build points of that order); factorizations asserted in the script */")
    out.append(carr(nm + "_G1_H", h1, 4))
    out.append("#define %s_G1_H_SMALL %du" % (nm, min(c.get("h1_primes", [1]))))
    nh2 = (h2.bit_length() + 63) // 64
    out.append(carr(nm + "_G2_H", h2, nh2))
    out.append("#define %s_G2_H_LIMBS %d" % (nm, nh2))
    out.append("#define %s_G2_H_SMALL %du" % (nm, min(c["h2_primes"])))
    # psi^k = (twist)^-1 o Frob_q^k o (twist): (x, y) -> (frob^k(x) cx_k, frob^k(y) cy_k) with
    # D-type untwist (x w^2, y w^3): cx_k = xi^((q^k-1)/3), cy_k = xi^((q^k-1)/2); M-type
    # untwist (x / w^2, y / w^3): their inverses (w^6 = xi).
    def frob(a, k): return a.conj() if k & 1 else a
    cx, cy = {}, {}
    for k in (1, 2, 3):
        cx[k], cy[k] = xi ** ((q**k - 1) // 3), xi ** ((q**k - 1) // 2)
        if c["twist"] == "M":
            cx[k], cy[k] = cx[k].inv(), cy[k].inv()
    psi = lambda P, k=1: None if P is None else (frob(P[0], k) * cx[k], frob(P[1], k) * cy[k])
    lam2 = q % r
    assert psi(g2) == ec_mul(g2, lam2)  # psi acts as q on G2
    for P in pts:
        assert on_curve(psi(P), b2)
        assert psi(P, 2) == psi(psi(P)) and psi(P, 3) == psi(psi(P, 2))
        # psi^2 - t psi + q = 0 on all of E'(Fq2), the characteristic polynomial used below
        assert ec_add(ec_add(psi(P, 2), ec_smul(psi(P), -t), None), ec_mul(P, q), None) is None
    def ev(g, v): return sum(cf * pow(v, i, r) for i, cf in enumerate(g)) % r
    if c["name"] == "bn254":
        # El Housni, Guillevic, Piellard (ePrint 2022/352): (x+1) + x psi + x psi^2 - 2x psi^3
        g = [xs + 1, xs, xs, -2 * xs]
        desc = "[x+1]P + psi([x]P) + psi^2([x]P) == psi^3([2x]P)"
    else:
        g = [-xs, 1]  # Scott (ePrint 2021/1130): psi(P) == [x]P
        desc = "psi(P) == [x]P"
    assert ev(g, lam2) == 0 and math.gcd(endo_res(g, t, q), h2) == 1
    out.append("/* G2 test %s, exact: g(lam) = 0 mod r, gcd(Res(X^2 - tX + q, g), h2) = 1. */" % desc)
    out.append("/* psi^k(x, y) = (frob^k(x) PSI[k-1][0], frob^k(y) PSI[k-1][1]) on E'(Fq2), k = 1..3; %s-type */"
               % c["twist"])
    out.append("static const uint64_t %s_G2_PSI[3][2][2][%d] = {" % (nm, nq))
    for k in (1, 2, 3):
        out.append("    {%s}," % ", ".join("{{%s}, {%s}}" % tuple(
            ", ".join("0x%016xull" % l for l in limbs(mq(v), nq)) for v in (e.a, e.b)) for e in (cx[k], cy[k])))
    out.append("};")
    if h1 > 1:
        # phi(x, y) = (beta x, y), beta a primitive cube root of unity in Fq: phi^2 + phi + 1 = 0;
        # of the two beta, the one with phi = -x^2 on G1 (the other gives x^2 - 1)
        b1 = Fq(c["b"])
        w = next(pow(a, (q - 1) // 3, q) for a in range(2, 100) if pow(a, (q - 1) // 3, q) != 1)
        betas = [bb for bb in (w, w * w % q) if (g1[0] * Fq(bb), g1[1]) == ec_smul(g1, -xs * xs)]
        assert len(betas) == 1
        beta = betas[0]
        assert (beta * beta + beta + 1) % q == 0
        # phi acts as lam1 = -x^2 on G1 (the choice of beta), so g = X + x^2 has g(lam1) = 0;
        # Res(X^2 + X + 1, X + x^2) = x^4 - x^2 + 1 = r, prime to h1
        assert endo_res([xs * xs, 1], -1, 1) == r and math.gcd(r, h1) == 1
        for P in [rand_point(b1, b1, rng) for _ in range(3)]:
            Q = (P[0] * Fq(beta), P[1])
            assert on_curve(Q, b1)
            assert ec_add(ec_add(ec_mul(Q, 1), (Q[0] * Fq(beta), Q[1]), None), P, None) is None
        out.append("/* G1 test phi(P) == -[x^2]P (Scott, ePrint 2021/1130), phi(x, y) = (beta x, y), beta a")
        out.append(" * cube root of unity with phi(G) = -x^2 G; exact: Res(X^2 + X + 1, X + x^2) = r, r does not divide h1 */")
        out.append(carr(nm + "_G1_BETA", mq(beta), nq))

def main():
    out = ["/* curve_consts.h - GENERATED by scripts/gen-consts.py; do not edit by hand.",
           " * Each constant's derivation is in the comment above it and in the script, which",
           " * asserts every property it relies on (generators on curve and of order r, roots of",
           " * unity of exact order). All field elements are in Montgomery form, R = 2^(64*limbs). */",
           "#ifndef ZKA_CURVE_CONSTS_H", "#define ZKA_CURVE_CONSTS_H", "#include <stdint.h>", ""]
    for c in CURVES:
        q, r, nq, nm = c["q"], c["r"], c["nq"], c["name"].upper()
        Rq = field_block(nm + "_FQ", q, nq, out)
        Rr = field_block(nm + "_FR", r, 4, out)
        mq = lambda v: v * Rq % q
        # Fr two-adicity and the ffjavascript root of unity: w = nqr^t, r - 1 = 2^s t.
        s, t = 0, r - 1
        while t % 2 == 0: s, t = s + 1, t // 2
        nqr = 2
        while pow(nqr, (r - 1) // 2, r) != r - 1: nqr += 1
        assert nqr == 5
        w = pow(nqr, t, r)
        assert pow(w, 2**s, r) == 1 and pow(w, 2**(s - 1), r) != 1
        out.append("/* Fr two-adicity s: r - 1 = 2^s * t, t odd */")
        out.append("#define %s_FR_S %d" % (nm, s))
        out.append("/* primitive 2^s-th root of unity as ffjavascript picks it: 5^t (5 = smallest QNR mod r) */")
        out.append(carr(nm + "_FR_ROOT", w * Rr % r, 4))
        # G1
        Fq = lambda v: F1(q, v)
        g1 = (Fq(c["g1"][0]), Fq(c["g1"][1]))
        assert on_curve(g1, Fq(c["b"])) and ec_mul(g1, r) is None
        out.append("/* G1: y^2 = x^3 + %d; b in Montgomery form */" % c["b"])
        out.append(carr(nm + "_G1_B", mq(c["b"]), nq))
        out.append("/* G1 generator (affine, Montgomery), checked on curve and of order r */")
        out.append(carr(nm + "_G1_GX", mq(c["g1"][0]), nq))
        out.append(carr(nm + "_G1_GY", mq(c["g1"][1]), nq))
        # G2 twist coefficient
        xi = F2(q, *c["xi"])
        b2 = F2(q, c["b"], 0) * (xi.inv() if c["twist"] == "D" else xi)
        (gx0, gx1), (gy0, gy1) = c["g2"]
        g2 = (F2(q, gx0, gx1), F2(q, gy0, gy1))
        assert on_curve(g2, b2) and ec_mul(g2, r) is None
        out.append("/* G2 twist: y^2 = x^3 + b' over Fq2 = Fq[u]/(u^2+1), %s-type: b' = %s with xi = %d + %du */"
                   % (c["twist"], "b / xi" if c["twist"] == "D" else "b * xi", c["xi"][0], c["xi"][1]))
        out.append(carr(nm + "_G2_B0", mq(b2.a), nq))
        out.append(carr(nm + "_G2_B1", mq(b2.b), nq))
        out.append("/* G2 generator x = x0 + x1 u, y = y0 + y1 u (Montgomery), checked on curve and of order r */")
        for nmx, v in (("X0", gx0), ("X1", gx1), ("Y0", gy0), ("Y1", gy1)):
            out.append(carr(nm + "_G2_G" + nmx, mq(v), nq))
        out.append("/* xi, the cubic non-residue of Fq6 = Fq2[v]/(v^3 - xi), Montgomery */")
        out.append(carr(nm + "_XI0", mq(c["xi"][0]), nq))
        out.append(carr(nm + "_XI1", mq(c["xi"][1]), nq))
        # pairing parameters
        x = c["x"]
        if c["name"] == "bn254":
            loop = 6 * x + 2
            out.append("/* optimal ate loop count 6x+2 for x = %d (BN parameter) */" % x)
        else:
            loop = x
            out.append("/* ate loop count |x|, x = -0x%x (BLS parameter, negative) */" % x)
        out.append("static const uint64_t %s_ATE_LOOP[2] = {0x%016xull, 0x%016xull};" % (nm, loop & (2**64 - 1), loop >> 64))
        out.append("#define %s_ATE_LOOP_BITS %d" % (nm, loop.bit_length()))
        out.append("#define %s_ATE_NEG %d" % (nm, 1 if c["x_neg"] else 0))
        # final exponent: after the easy part f^(p^6-1), raise to (p^2+1)(p^4-p^2+1)/r
        assert (q**4 - q**2 + 1) % r == 0
        e = (q**2 + 1) * ((q**4 - q**2 + 1) // r)
        ne = (e.bit_length() + 63) // 64
        out.append("/* final exponentiation after f^(p^6-1): e = (p^2+1)(p^4-p^2+1)/r, %d bits */" % e.bit_length())
        out.append(carr(nm + "_FINAL_EXP", e, ne))
        out.append("#define %s_FINAL_EXP_LIMBS %d" % (nm, ne))
        # Frobenius of Fq12 = Fq2[w]/(w^6 - xi) (w^2 = v): (a w^k)^(q^i) = a^(q^i) w^k gamma_{i,k}
        # with gamma_{i,k} = xi^(k (q^i - 1) / 6); also the twist Frobenius psi uses gamma_{i,2..3}.
        gam = {}
        for i in (1, 2, 3):
            assert (q**i - 1) % 6 == 0
            for k in range(1, 6):
                gam[i, k] = xi ** (k * (q**i - 1) // 6)
                # w^(k q^i) = (w^(k q^(i-1)))^q = w^k gamma_{1,k} conj(gamma_{i-1,k})
                if i > 1:
                    assert gam[i, k] == gam[1, k] * gam[i - 1, k].conj()
                # gamma^6 = xi^(k (q^i - 1))
                assert gam[i, k] ** 6 == xi ** (k * (q**i - 1))
                if i == 2:
                    assert gam[i, k].b == 0  # q^2 - 1 multiple of 6 with xi^(q^2-1) in Fq
        out.append("/* Frobenius coefficients gamma_{i,k} = xi^(k (q^i - 1) / 6), [i-1][k-1][c0/c1], Montgomery */")
        out.append("static const uint64_t %s_FROB_GAMMA[3][5][2][%d] = {" % (nm, nq))
        for i in (1, 2, 3):
            rows = []
            for k in range(1, 6):
                g = gam[i, k]
                rows.append("{{%s}, {%s}}" % tuple(", ".join("0x%016xull" % l for l in limbs(mq(v), nq))
                                                   for v in (g.a, g.b)))
            out.append("    {" + ",\n     ".join(rows).replace("\\n", "\n") + "},")
        out.append("};")
        # hard part of the final exponentiation, h = (q^4 - q^2 + 1) / r, as an exact chain in x
        h = (q**4 - q**2 + 1) // r
        xs = -x if c["x_neg"] else x
        out.append("/* |x| of the curve parameter x and its sign */")
        out.append("static const uint64_t %s_X_ABS = 0x%016xull;" % (nm, x))
        out.append("#define %s_X_NEG %d" % (nm, 1 if c["x_neg"] else 0))
        if c["name"] == "bn254":
            # Scott et al., "On the final exponentiation ...": h = l0 + l1 q + l2 q^2 + l3 q^3
            lam = [[-2, -18, -30, -36], [1, -12, -18, -36], [1, 0, 6, 0], [1, 0, 0, 0]]
            assert h == sum(sum(cf * xs**j for j, cf in enumerate(lam[i])) * q**i for i in range(4))
            out.append("/* hard part h = (q^4-q^2+1)/r = sum_i q^i sum_j HARD[i][j] x^j (exact identity) */")
            out.append("static const int8_t %s_HARD[4][4] = {%s};" % (
                nm, ", ".join("{%s}" % ", ".join(str(v) for v in row) for row in lam)))
        else:
            # BLS12: h = ((x-1)^2 / 3) (x + q) (x^2 + q^2 - 1) + 1 (exact identity, 3 | x - 1)
            assert (xs - 1) % 3 == 0
            assert h == (xs - 1) * ((xs - 1) // 3) * (xs + q) * (xs**2 + q**2 - 1) + 1
            d = (xs - 1) // 3
            out.append("/* hard part h = (q^4-q^2+1)/r = (x-1) ((x-1)/3) (x+q) (x^2+q^2-1) + 1; |(x-1)/3| and sign */")
            out.append("static const uint64_t %s_XM1_DIV3_ABS = 0x%016xull;" % (nm, abs(d)))
            out.append("#define %s_XM1_DIV3_NEG %d" % (nm, 1 if d < 0 else 0))
        out.append("/* r as plain limbs, the scalar of subgroup checks */")
        out.append(carr(nm + "_R_PLAIN", r, 4))
        subgroup_block(c, nm, xi, b2, g1, g2, Fq, mq, out)
        out.append("")
    out.append("#endif")
    print("\n".join(out))

main()
