// inputs.js merkle|sha16 SEED - a random input.json for the benchmark circuits of this folder.
const [c, s] = process.argv.slice(2);
let seed = BigInt(s) + 12345n;
const r = () => (seed = (seed * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n)) >> 11n;
let j;
if (c === "merkle") {
    j = { leaf: [], path: [], sel: [] };
    for (let k = 0; k < 100; k++) {
        j.leaf.push((r() * r()).toString());
        j.path.push([...Array(20)].map(() => (r() * r() * r()).toString()));
        j.sel.push([...Array(20)].map(() => Number(r() % 2n)));
    }
} else {
    j = { in: [...Array(16)].map(() => [...Array(512)].map(() => Number(r() % 2n))) };
}
process.stdout.write(JSON.stringify(j));
