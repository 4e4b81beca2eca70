pragma circom 2.0.0;
// none.circom - no constraints at all: one public and one private input that nothing uses
// (domain 2: the public input and the constant 1). snarkjs keys and proves it.
template None() {
    signal input a;
    signal input b;
}

component main {public [a]} = None();
