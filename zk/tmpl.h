/* tmpl.h - token pasting for the curve templates: NAME(bn254, fq_mul) -> bn254_fq_mul. */
#ifndef ZKA_TMPL_H
#define ZKA_TMPL_H
#define ZKA_CAT2_(a, b) a##_##b
#define ZKA_CAT2(a, b) ZKA_CAT2_(a, b)
#endif
