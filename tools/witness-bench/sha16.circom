pragma circom 2.0.0;
// sha16.circom - 16 SHA-256 hashes of 64-byte messages (two compressions each; issue 41's
// second 2^20 circuit, mostly 0/1 values).
include "circomlib/circuits/sha256/sha256.circom";
template Sha16() {
    signal input in[16][512];
    signal output out[16][256];
    component s[16];
    for (var k = 0; k < 16; k++) {
        s[k] = Sha256(512);
        for (var i = 0; i < 512; i++) s[k].in[i] <== in[k][i];
        for (var i = 0; i < 256; i++) out[k][i] <== s[k].out[i];
    }
}
component main = Sha16();
