pragma circom 2.0.0;
// ops.circom - every operator circom's witness code can apply to a signal's value, on
// private inputs: integer division, modulo, powers, shifts both ways, bitwise operators,
// signed comparisons (values above (p-1)/2 read as negative), logic, a ternary, and
// integer divisions guarded by a branch (a divisor of zero only on the branch not taken).
template Ops() {
    signal input x;
    signal input y;
    signal input s;
    signal output o[18];
    o[0] <-- x \ (y + 1);
    o[1] <-- x % (y + 1);
    o[2] <-- x ** 5;
    o[3] <-- x >> (s % 300);
    o[4] <-- (x << (s % 300)) + (y >> 3);
    o[5] <-- x & y;
    o[6] <-- x | y;
    o[7] <-- x ^ y;
    o[8] <-- ~x;
    o[9] <-- x < y;
    o[10] <-- (x >= y) + (x <= y) * 2 + (x > y) * 4;
    o[11] <-- (x == y) || (x != 0 && y != 0);
    o[12] <-- !x;
    o[13] <-- x != y ? x / (y + 0) : 77;
    o[14] <-- x >> (0 - (s % 7));
    o[15] <-- -x * y - (x - y) / 3;
    // an integer division by zero stops circom's calculator, but not on a branch not taken
    var d = 9;
    if (y + 2 != 0) {
        d = x % (y + 2);
    }
    o[16] <-- d;
    o[17] <-- y + 3 == 0 ? 1 : x \ (y + 3);
}
component main = Ops();
