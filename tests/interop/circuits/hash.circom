pragma circom 2.0.0;
// hash.circom - a circomlib Poseidon hash with a public input array and a public output:
// wide linear combinations and full-width witness values, unlike mix.circom.
include "circomlib/circuits/poseidon.circom";

template Hash() {
    signal input a[2];
    signal input salt;
    signal output h;
    component p = Poseidon(3);
    p.inputs[0] <== a[0];
    p.inputs[1] <== a[1];
    p.inputs[2] <== salt;
    h <== p.out;
}

component main {public [a]} = Hash();
