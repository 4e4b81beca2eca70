pragma circom 2.0.0;
// hashes.circom - Poseidon, MiMC sponge and SHA-256 (bit-level, shifts and ands in its
// witness code) on one circuit; no public signals.
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/mimcsponge.circom";
include "circomlib/circuits/sha256/sha256.circom";
template Hashes() {
    signal input x[4];
    signal input bits[64];
    component p = Poseidon(4); for (var i = 0; i < 4; i++) p.inputs[i] <== x[i];
    component m = MiMCSponge(2, 220, 1); m.ins[0] <== x[0]; m.ins[1] <== p.out; m.k <== x[3];
    component s = Sha256(64); for (var i = 0; i < 64; i++) s.in[i] <== bits[i];
    signal acc[257];
    acc[0] <== m.outs[0];
    for (var i = 0; i < 256; i++) acc[i + 1] <== acc[i] + s.out[i] * (i + 1);
}
component main = Hashes();
