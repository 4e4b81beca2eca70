pragma circom 2.0.0;
// merkle.circom - 100 Poseidon Merkle inclusion proofs of depth 20 (issue 41's first 2^20
// circuit): per level a selector bit orders the pair, then Poseidon(2).
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/switcher.circom";
include "circomlib/circuits/bitify.circom";
template Proof(depth) {
    signal input leaf;
    signal input path[depth];
    signal input sel[depth];
    signal output root;
    component sw[depth];
    component h[depth];
    signal cur[depth + 1];
    cur[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        sw[i] = Switcher();
        sw[i].sel <== sel[i];
        sw[i].L <== cur[i];
        sw[i].R <== path[i];
        h[i] = Poseidon(2);
        h[i].inputs[0] <== sw[i].outL;
        h[i].inputs[1] <== sw[i].outR;
        cur[i + 1] <== h[i].out;
    }
    root <== cur[depth];
}
template Many(n, depth) {
    signal input leaf[n];
    signal input path[n][depth];
    signal input sel[n][depth];
    signal output root[n];
    component p[n];
    for (var k = 0; k < n; k++) {
        p[k] = Proof(depth);
        p[k].leaf <== leaf[k];
        for (var i = 0; i < depth; i++) {
            p[k].path[i] <== path[k][i];
            p[k].sel[i] <== sel[k][i];
        }
        root[k] <== p[k].root;
    }
}
component main = Many(100, 20);
