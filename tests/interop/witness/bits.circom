pragma circom 2.0.0;
// bits.circom - comparators, bit decompositions, IsZero/IsEqual (a branch on a signal) and a
// multiplexer, with a 2-d input array and public inputs.
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/mux1.circom";
template Bits() {
    signal input a;
    signal input m[2][3];
    signal input sel;
    signal output out[5];
    component z = IsZero(); z.in <== a;
    component e = IsEqual(); e.in[0] <== m[0][0]; e.in[1] <== m[1][2];
    component lt = LessThan(16); lt.in[0] <== m[0][1]; lt.in[1] <== m[1][1];
    component ge = GreaterEqThan(16); ge.in[0] <== m[0][2]; ge.in[1] <== m[1][0];
    component nb = Num2Bits(32); nb.in <== m[0][1] * 65536 + m[1][1];
    component b2n = Bits2Num(32); for (var i = 0; i < 32; i++) b2n.in[i] <== nb.out[31 - i];
    component mx = Mux1(); mx.c[0] <== a; mx.c[1] <== m[1][2]; mx.s <== sel;
    out[0] <== z.out; out[1] <== e.out; out[2] <== lt.out + ge.out * 2;
    out[3] <== b2n.out; out[4] <== mx.out;
}
component main {public [a, sel]} = Bits();
