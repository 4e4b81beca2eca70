pragma circom 2.0.0;
// nopub.circom - no public signals at all: snarkjs writes [] to public.json.
template NoPub() {
    signal input a;
    signal input b;
    signal c;
    c <== a * b;
    signal d;
    d <== c * c;
}
component main = NoPub();
