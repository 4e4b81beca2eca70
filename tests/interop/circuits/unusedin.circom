pragma circom 2.0.0;
// unusedin.circom - private inputs that no constraint uses. circom (default --O1 and --O2)
// drops them from the wires but still counts them in the r1cs header: nWires 4 (1, a, b, c)
// < 1 + 0 outputs + 0 public + 4 private inputs. snarkjs keys and proves it; found by
// random.sh (seed 11399-1; gen-circuit.js's "unused input").
template UnusedIn() {
    signal input a;
    signal input b;
    signal input u;
    signal input v;
    signal c;
    c <== a * b;
}

component main = UnusedIn();
