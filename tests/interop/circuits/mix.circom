pragma circom 2.0.0;
// mix.circom - an interop circuit: a multiplication chain, a range check (many 0/1 signals,
// the common case of real witnesses), one public input and two outputs.
include "circomlib/circuits/comparators.circom";

template Mix(n) {
    signal input a;
    signal input b;
    signal input x[n];
    signal output out;
    signal output lt;
    signal t[n];
    t[0] <== a * b;
    for (var i = 1; i < n; i++) {
        t[i] <== t[i-1] * x[i] + a;
    }
    out <== t[n-1];
    component c = LessThan(32);
    c.in[0] <== x[0];
    c.in[1] <== b;
    lt <== c.out;
}

component main {public [a]} = Mix(40);
