pragma circom 2.0.0;
// eddsa.circom - circomlib's EdDSA-Poseidon verifier (Baby Jubjub arithmetic, divisions,
// CompConstant, ForceEqualIfEnabled: asserts under a signal condition).
include "circomlib/circuits/eddsaposeidon.circom";
component main {public [Ax, Ay, M]} = EdDSAPoseidonVerifier();
