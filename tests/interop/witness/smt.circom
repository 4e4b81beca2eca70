pragma circom 2.0.0;
// smt.circom - circomlib's sparse Merkle tree verifier: signal-dependent branches in its
// level logic and switchers.
include "circomlib/circuits/smt/smtverifier.circom";
component main = SMTVerifier(10);
