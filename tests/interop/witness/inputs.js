// inputs.js CIRCUIT SEED PRIME - prints a random input.json for one of this folder's circuits,
// in the forms snarkjs accepts (decimal and hex strings, numbers, negative values, nested
// arrays), so that zkarena's witness can be compared with snarkjs's on fresh values.
const [circuit, seedArg, prime] = process.argv.slice(2);
let seed = BigInt(seedArg) * 6364136223846793005n + 1442695040888963407n;
const M64 = (1n << 64n) - 1n;
function rnd64() {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) & M64;
    return seed ^ (seed >> 29n);
}
function rbits(n) {
    let v = 0n;
    for (let i = 0; i < n; i += 64) v = (v << 64n) | rnd64();
    return v & ((1n << BigInt(n)) - 1n);
}
const P = prime === "bls12381"
    ? 52435875175126190479447740508185965837690552500527637822603658699938581184513n
    : 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
// one value in a random notation snarkjs reads
function fmt(v) {
    switch (Number(rnd64() % 4n)) {
    case 0: return v.toString();
    case 1: return "0x" + v.toString(16);
    case 2: return v < 2n ** 53n ? Number(v) : v.toString();
    default: return v === 0n ? 0 : (v - P).toString(); // the same residue, negative
    }
}
// a field element of a random kind: small, near p, near (p-1)/2, or anything
function fe() {
    switch (Number(rnd64() % 5n)) {
    case 0: return rbits(8);
    case 1: return P - 1n - rbits(4);
    case 2: return (P - 1n) / 2n + rbits(2) - 1n;
    case 3: return 0n;
    default: return rbits(300) % P;
    }
}
let inp;
switch (circuit) {
case "ops":
    inp = { x: fmt(fe()), y: fmt(fe()), s: fmt(rbits(12)) };
    break;
case "bits": {
    const m = [[], []];
    for (let i = 0; i < 3; i++) { m[0].push(rbits(16)); m[1].push(rbits(16)); }
    if (rnd64() % 2n) m[1][2] = m[0][0];
    inp = { a: fmt(rnd64() % 3n ? rbits(64) : 0n), m: m.map(r => r.map(fmt)), sel: fmt(rnd64() % 2n) };
    break;
}
case "hashes": {
    const bits = [];
    for (let i = 0; i < 64; i++) bits.push(Number(rnd64() % 2n));
    inp = { x: [fe(), fe(), fe(), fe()].map(fmt), bits };
    break;
}
case "eddsa":
    inp = { enabled: rnd64() % 4n ? 0 : 1, Ax: fmt(fe()), Ay: fmt(fe()), S: fmt(rbits(250)),
            R8x: fmt(fe()), R8y: fmt(fe()), M: fmt(fe()) };
    break;
case "smt": {
    const sib = [];
    for (let i = 0; i < 10; i++) sib.push(fmt(i < 3 ? fe() : 0n));
    inp = { enabled: 0, fnc: rnd64() % 2n, root: fmt(fe()), siblings: sib, oldKey: fmt(rbits(250)),
            oldValue: fmt(fe()), isOld0: rnd64() % 2n, key: fmt(rbits(250)), value: fmt(fe()) };
    inp.fnc = Number(inp.fnc); inp.isOld0 = Number(inp.isOld0);
    break;
}
default:
    throw new Error("unknown circuit " + circuit);
}
process.stdout.write(JSON.stringify(inp) + "\n");
