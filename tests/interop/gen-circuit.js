#!/usr/bin/env node
// gen-circuit.js - writes a random circom circuit and an input that satisfies it, chosen
// deterministically from a seed (used by random.sh to test zkarena on shapes nobody picked).
//
//   node gen-circuit.js SEED OUTDIR NAME [FIRST.r1cs]
//       writes OUTDIR/NAME.circom and OUTDIR/NAME.input.json and prints one summary line.
//       The first line of NAME.circom is "// circom-flags: FLAGS" (the optimisation this
//       seed chose: --O0, --O1 (circom's default) or --O2); compile it with those flags.
//       Some seeds ask for a constraint count on the edge of a snarkjs domain (which must
//       hold nConstraints + nPublic + 1): those need a first compile of the unpadded circuit,
//       passed as FIRST.r1cs; the circuit is then written again, identical but for extra
//       multiplications that make nConstraints + nPublic + 1 equal to 2^k ("exact") or
//       2^k + 1 ("past"). Without FIRST.r1cs nothing is padded.
//   node gen-circuit.js --info X.r1cs
//       prints "CONSTRAINTS PUBLIC" of a compiled circuit (PUBLIC = outputs + public inputs).
//
// The circuit is compiled for BN254 and for BLS12-381 alike, so every input value is below
// the BN254 scalar field modulus (the smaller one), and every value that must be small (the
// input of Num2Bits, LessThan, ...) is an integer that is the same in both fields: made of
// small inputs, bits, sums and products without negative constants and without wrapping.
// Total constraints stay below 1000 (the interop ptau is 2^10).
'use strict';
const fs = require('fs');
const path = require('path');

// BN254 scalar field modulus (r of "bn128"); all inputs are below it
const R_BN = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
// The biggest domain the interop ptau (2^10) allows: nConstraints + nPublic + 1 <= this
const MAX_DOMAIN = 1024;

// ---------------------------------------------------------------------------------------
// r1cs header reader (for --info and for padding): returns {constraints, pub}

function r1csInfo(file) {
	const b = fs.readFileSync(file);
	if (b.toString('latin1', 0, 4) !== 'r1cs') throw new Error(file + ': not an r1cs file');
	const nSections = b.readUInt32LE(8);
	let off = 12;
	for (let i = 0; i < nSections; i++) {
		const type = b.readUInt32LE(off);
		const size = Number(b.readBigUInt64LE(off + 4));
		off += 12;
		if (type === 1) {
			// header: n8, prime (n8 bytes), nWires, nPubOut, nPubIn, nPrvIn, nLabels (u64), m
			const n8 = b.readUInt32LE(off);
			let h = off + 4 + n8;
			const nPubOut = b.readUInt32LE(h + 4);
			const nPubIn = b.readUInt32LE(h + 8);
			const m = b.readUInt32LE(h + 24);
			return { constraints: m, pub: nPubOut + nPubIn };
		}
		off += size;
	}
	throw new Error(file + ': no header section');
}

// ---------------------------------------------------------------------------------------
// Deterministic random numbers: the seed string is hashed (xmur3) into the state of sfc32.

function makeRng(seedStr) {
	let h = 1779033703 ^ seedStr.length;
	for (let i = 0; i < seedStr.length; i++) {
		h = Math.imul(h ^ seedStr.charCodeAt(i), 3432918353);
		h = (h << 13) | (h >>> 19);
	}
	const next32 = () => {
		h = Math.imul(h ^ (h >>> 16), 2246822507);
		h = Math.imul(h ^ (h >>> 13), 3266489909);
		return (h ^= h >>> 16) >>> 0;
	};
	let a = next32(), b = next32(), c = next32(), d = next32();
	const u32 = () => {
		// sfc32
		a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
		let t = (a + b) | 0;
		a = b ^ (b >>> 9);
		b = (c + (c << 3)) | 0;
		c = (c << 21) | (c >>> 11);
		d = (d + 1) | 0;
		t = (t + d) | 0;
		c = (c + t) | 0;
		return t >>> 0;
	};
	const r = {
		u32,
		// integer in [lo, hi]
		int: (lo, hi) => lo + Math.floor((u32() / 4294967296) * (hi - lo + 1)),
		// true with probability p
		chance: (p) => u32() / 4294967296 < p,
		pick: (arr) => arr[Math.floor((u32() / 4294967296) * arr.length)],
		// a uniform BigInt below 2^bits
		bits: (bits) => {
			let v = 0n;
			for (let i = 0; i < bits; i += 32) v = (v << 32n) | BigInt(u32());
			return v & ((1n << BigInt(bits)) - 1n);
		},
		// picks a key of {key: weight}
		weighted: (w) => {
			const keys = Object.keys(w);
			let total = 0;
			for (const k of keys) total += w[k];
			let x = (u32() / 4294967296) * total;
			for (const k of keys) {
				if ((x -= w[k]) < 0) return k;
			}
			return keys[keys.length - 1];
		},
	};
	return r;
}

// ---------------------------------------------------------------------------------------
// Input values

// any field element below R_BN, biased to the edge cases
function anyValue(rng) {
	switch (rng.int(0, 9)) {
	case 0: return 0n;
	case 1: return 1n;
	case 2: return R_BN - 1n; // -1 in BN254
	case 3: return R_BN - BigInt(rng.int(2, 1000)); // small negative in BN254
	case 4: return BigInt(rng.int(2, 1000000));
	case 5: return (R_BN - 1n) / 2n + BigInt(rng.int(-3, 3)); // around (r-1)/2
	case 6: return 1n << BigInt(rng.int(64, 253)); // a power of two (below r: 2^253 < r)
	default: return rng.bits(254) % R_BN; // uniform-ish below r
	}
}

// a value below 2^bits, biased to 0, 1 and the top
function smallValue(rng, bits) {
	const top = (1n << BigInt(bits)) - 1n;
	switch (rng.int(0, 5)) {
	case 0: return 0n;
	case 1: return top < 1n ? top : 1n;
	case 2: return top;
	default: return rng.bits(bits);
	}
}

// ---------------------------------------------------------------------------------------
// Constants written in the circuit: small, negative, and the BN254 modulus minus a little
// (a large literal, below both moduli: -1 or -2 in BN254, a large element in BLS12-381)

function konst(rng) {
	switch (rng.int(0, 9)) {
	case 0: return '-1';
	case 1: return '-' + rng.int(2, 1000);
	case 2: return (R_BN - 1n).toString();
	case 3: return (R_BN - BigInt(rng.int(2, 5))).toString();
	case 4: return rng.bits(250).toString();
	case 5: return '0';
	default: return String(rng.int(1, 1000));
	}
}

// ---------------------------------------------------------------------------------------
// Helper templates, written into the circuit when used

const TEMPLATES = {
	MulChain: `// MulChain(n, k): t[i] = t[i-1] * in[i] + k, a chain of n-1 multiplications
template MulChain(n, k) {
    signal input in[n];
    signal output out;
    signal t[n];
    t[0] <== in[0];
    for (var i = 1; i < n; i++) {
        t[i] <== t[i-1] * in[i] + k;
    }
    out <== t[n-1];
}
`,
	MulTree: `// MulTree(n): product of in[0..n-1] as a binary tree (n >= 2). Heap layout: node j has
// children 2j+1 and 2j+2; nodes 0..n-2 are products t[j], nodes n-1..2n-2 are in[j-(n-1)].
template MulTree(n) {
    signal input in[n];
    signal output out;
    signal t[n-1];
    for (var j = n - 2; j >= 0; j--) {
        var l = 2*j + 1;
        var r = 2*j + 2;
        if (r < n - 1) {
            t[j] <== t[l] * t[r];
        } else if (l < n - 1) {
            t[j] <== t[l] * in[r - (n - 1)];
        } else {
            t[j] <== in[l - (n - 1)] * in[r - (n - 1)];
        }
    }
    out <== t[0];
}
`,
	WeightedSum: `// WeightedSum(n, s, c): out = s * sum (i+1) * in[i] + c, one linear constraint
template WeightedSum(n, s, c) {
    signal input in[n];
    signal output out;
    var lc = 0;
    for (var i = 0; i < n; i++) {
        lc += in[i] * (i + 1) * s;
    }
    out <== lc + c;
}
`,
	Pow5Rounds: `// Pow5Rounds(n, c): n MiMC-like rounds x = (x + c + 7i)^5
template Pow5Rounds(n, c) {
    signal input in;
    signal output out;
    signal x[n+1];
    signal s2[n];
    signal s4[n];
    x[0] <== in;
    for (var i = 0; i < n; i++) {
        var k = c + 7*i;
        s2[i] <== (x[i] + k) * (x[i] + k);
        s4[i] <== s2[i] * s2[i];
        x[i+1] <== s4[i] * (x[i] + k);
    }
    out <== x[n];
}
`,
	Pow7Rounds: `// Pow7Rounds(n, c): n MiMC-like rounds x = (x + c - 3i)^7
template Pow7Rounds(n, c) {
    signal input in;
    signal output out;
    signal x[n+1];
    signal s2[n];
    signal s4[n];
    signal s6[n];
    x[0] <== in;
    for (var i = 0; i < n; i++) {
        var k = c - 3*i;
        s2[i] <== (x[i] + k) * (x[i] + k);
        s4[i] <== s2[i] * s2[i];
        s6[i] <== s4[i] * s2[i];
        x[i+1] <== s6[i] * (x[i] + k);
    }
    out <== x[n];
}
`,
};

// ---------------------------------------------------------------------------------------
// The generator. The circuit is one template "Rand" whose body is a list of statements over
// a pool of values: inputs, intermediate signals and component outputs. Each pool entry
// knows its bit bound (bits: the value is an integer below 2^bits in both fields) or has
// bits = null (any field element, possibly different between the two fields).

function generate(seed, firstR1cs) {
	const rng = makeRng(String(seed));
	const opt = rng.pick(['--O0', '--O1', '--O1', '--O2']);
	const edge = rng.weighted({ none: 6, exact: 2, past: 2 }); // domain edge wanted
	// estimated constraints allowed (an upper bound for the chosen optimisation)
	const budget = rng.pick([15, 40, 120, 300, 600, 900]);
	const o0 = opt === '--O0';

	const inputs = []; // {name, len (0: scalar), values: [BigInt], pub}
	const pool = []; // {ref, bits, input: {values} or undefined}
	const body = []; // statements of Rand
	const used = new Set(); // helper templates and circomlib files used
	const features = []; // for the summary line
	let cost = 0; // estimated constraints
	let nsig = 0, ncomp = 0;

	// a scalar input; kind: 'any', 'bit', 'small', 'nonzero'
	function addInput(kind) {
		const name = 'x' + inputs.length;
		let v, bits = null;
		if (kind === 'bit') { v = BigInt(rng.int(0, 1)); bits = 1; }
		else if (kind === 'small') { bits = rng.pick([1, 2, 8, 16, 32, 32, 64, 100]); v = smallValue(rng, bits); }
		else if (kind === 'nonzero') { do v = anyValue(rng); while (v === 0n); }
		else v = anyValue(rng);
		const inp = { name, len: 0, values: [v], pub: false, kind, bits };
		inputs.push(inp);
		pool.push({ ref: name, bits, input: inp });
		return inp;
	}
	// an input array, all elements of one kind
	function addInputArray(len, kind) {
		const name = 'v' + inputs.length;
		const bits = kind === 'small' ? rng.pick([4, 16, 32]) : null;
		const values = [];
		for (let i = 0; i < len; i++) values.push(bits ? smallValue(rng, bits) : anyValue(rng));
		const inp = { name, len, values, pub: false, kind };
		inputs.push(inp);
		for (let i = 0; i < len; i++) pool.push({ ref: `${name}[${i}]`, bits });
		return inp;
	}

	const sig = () => 's' + nsig++;
	const comp = () => 'c' + ncomp++;
	const anyRef = () => rng.pick(pool);
	const smallRefs = (maxBits) => pool.filter((e) => e.bits !== null && e.bits <= maxBits);
	// a new intermediate signal with the given definition
	function define(rhs, bits) {
		const s = sig();
		body.push(`    signal ${s};`, `    ${s} <== ${rhs};`);
		pool.push({ ref: s, bits: bits !== null && bits <= 240 ? bits : null });
		return s;
	}
	// a linear term over one pool entry: x, (x + k), (k * x), (x - y)
	function term(e) {
		switch (rng.int(0, 5)) {
		case 0: return `(${e.ref} + ${konst(rng)})`;
		case 1: return `(${konst(rng)} * ${e.ref})`;
		case 2: return `(${e.ref} - ${anyRef().ref})`;
		default: return e.ref;
		}
	}

	// --- the operations; each returns false when it does not apply
	const ops = {
		mul() {
			// t = x * y, a square, or a product of linear terms plus a linear part
			const x = anyRef(), y = anyRef();
			switch (rng.int(0, 4)) {
			case 0: define(`${x.ref} * ${y.ref}`, x.bits !== null && y.bits !== null ? x.bits + y.bits : null); break;
			case 1: define(`${x.ref} * ${x.ref}`, x.bits !== null ? 2 * x.bits : null); break;
			case 2: define(`${konst(rng)} * ${x.ref} * ${y.ref}`, null); break;
			default: define(`${term(x)} * ${term(y)} + ${konst(rng)} * ${anyRef().ref} + ${konst(rng)}`, null);
			}
			cost += 1;
			return true;
		},
		lin() {
			// linear: x + y + k (small k keeps a bound), k1*x - y, a copy, a constant
			const x = anyRef(), y = anyRef();
			switch (rng.int(0, 4)) {
			case 0: {
				const k = rng.int(0, 100);
				const bits = x.bits !== null && y.bits !== null ? Math.max(x.bits, y.bits, 7) + 2 : null;
				define(`${x.ref} + ${y.ref} + ${k}`, bits);
				break;
			}
			case 1: define(`${konst(rng)} * ${x.ref} - ${y.ref}`, null); break;
			case 2: define(x.ref, x.bits); break;
			case 3: define(konst(rng), null); break;
			default: define(`${x.ref} - ${y.ref} + ${konst(rng)}`, null);
			}
			cost += 1;
			return true;
		},
		select() {
			// t = b ? x : y, with a bit b
			const bitsPool = smallRefs(1);
			if (!bitsPool.length) return false;
			const b = rng.pick(bitsPool), x = anyRef(), y = anyRef();
			define(`${b.ref} * (${x.ref} - ${y.ref}) + ${y.ref}`,
				x.bits !== null && y.bits !== null ? Math.max(x.bits, y.bits) : null);
			cost += 1;
			return true;
		},
		chain() {
			const n = rng.int(2, 12);
			const c = comp(), k = konst(rng);
			used.add('MulChain');
			body.push(`    component ${c} = MulChain(${n}, ${k});`);
			for (let i = 0; i < n; i++) body.push(`    ${c}.in[${i}] <== ${anyRef().ref};`);
			pool.push({ ref: `${c}.out`, bits: null });
			cost += 2 * n + 1;
			features.push(`chain${n}`);
			return true;
		},
		tree() {
			const n = rng.int(2, 13);
			const c = comp();
			used.add('MulTree');
			body.push(`    component ${c} = MulTree(${n});`);
			let bits = 0;
			for (let i = 0; i < n; i++) {
				const e = anyRef();
				bits = bits !== null && e.bits !== null ? bits + e.bits : null;
				body.push(`    ${c}.in[${i}] <== ${e.ref};`);
			}
			pool.push({ ref: `${c}.out`, bits: bits !== null && bits <= 240 ? bits : null });
			cost += 2 * n + 1;
			features.push(`tree${n}`);
			return true;
		},
		wsum() {
			const n = rng.int(2, 10);
			const c = comp(), s = rng.pick(['1', '-1']), k = konst(rng);
			used.add('WeightedSum');
			body.push(`    component ${c} = WeightedSum(${n}, ${s}, ${k});`);
			for (let i = 0; i < n; i++) body.push(`    ${c}.in[${i}] <== ${anyRef().ref};`);
			pool.push({ ref: `${c}.out`, bits: null });
			cost += n + 1;
			return true;
		},
		pow() {
			const e = rng.pick([5, 7]), n = rng.int(1, 6);
			const c = comp(), k = konst(rng);
			used.add(`Pow${e}Rounds`);
			body.push(`    component ${c} = Pow${e}Rounds(${n}, ${k});`, `    ${c}.in <== ${anyRef().ref};`);
			pool.push({ ref: `${c}.out`, bits: null });
			cost += n * (e === 5 ? 3 : 4) + 3;
			features.push(`x^${e}*${n}`);
			return true;
		},
		bits() {
			// Num2Bits(n) of a value below 2^n; its bits join the pool, some are summed back
			const cands = smallRefs(128);
			if (!cands.length) return false;
			const x = rng.pick(cands);
			const n = Math.min(Math.max(x.bits, 1) + rng.int(0, 4), 130);
			const c = comp();
			used.add('bitify');
			body.push(`    component ${c} = Num2Bits(${n});`, `    ${c}.in <== ${x.ref};`);
			for (let i = 0; i < Math.min(n, 4); i++) pool.push({ ref: `${c}.out[${rng.int(0, n - 1)}]`, bits: 1 });
			cost += n + 2;
			features.push(`bits${n}`);
			if (rng.chance(0.5)) {
				// back to a number from the low bits (Bits2Num)
				const m = rng.int(1, Math.min(n, 20));
				const d = comp();
				body.push(`    component ${d} = Bits2Num(${m});`);
				body.push(`    for (var i = 0; i < ${m}; i++) {`, `        ${d}.in[i] <== ${c}.out[i];`, '    }');
				pool.push({ ref: `${d}.out`, bits: m });
				cost += m + 1;
			}
			return true;
		},
		cmp() {
			// LessThan and friends of two values below 2^(n-1)
			const n = rng.pick([2, 8, 16, 32, 64, 65, 100]);
			const cands = smallRefs(n - 1);
			if (!cands.length) return false;
			const t = rng.pick(['LessThan', 'LessEqThan', 'GreaterThan', 'GreaterEqThan']);
			const c = comp();
			used.add('comparators');
			body.push(`    component ${c} = ${t}(${n});`,
				`    ${c}.in[0] <== ${rng.pick(cands).ref};`, `    ${c}.in[1] <== ${rng.pick(cands).ref};`);
			pool.push({ ref: `${c}.out`, bits: 1 });
			cost += n + 5;
			features.push(`${t}${n}`);
			return true;
		},
		iszero() {
			const c = comp();
			used.add('comparators');
			if (rng.chance(0.5)) {
				body.push(`    component ${c} = IsZero();`, `    ${c}.in <== ${anyRef().ref};`);
				cost += 3;
			} else {
				// IsEqual of two entries, often two equal inputs (see below) or x with itself
				const x = anyRef();
				const y = rng.chance(0.3) ? x : anyRef();
				body.push(`    component ${c} = IsEqual();`, `    ${c}.in[0] <== ${x.ref};`, `    ${c}.in[1] <== ${y.ref};`);
				cost += 5;
			}
			pool.push({ ref: `${c}.out`, bits: 1 });
			return true;
		},
		inverse() {
			// inv <-- 1/x; inv * x === 1, for an input known nonzero in both fields
			const nz = pool.filter((e) => e.input && e.input.values[0] !== 0n);
			if (!nz.length) return false;
			const x = rng.pick(nz), s = sig();
			body.push(`    signal ${s};`, `    ${s} <-- 1 / ${x.ref};`, `    ${s} * ${x.ref} === 1;`);
			pool.push({ ref: s, bits: null });
			cost += 1;
			features.push('inv');
			return true;
		},
		assert() {
			// a repeated constraint: the product of an earlier multiplication, asserted again
			const prods = body.filter((l) => /^ {4}s\d+ <== s\d+ \* s\d+;$/.test(l) || /^ {4}s\d+ <== x\d+ \* x\d+;$/.test(l));
			if (prods.length) {
				const m = rng.pick(prods).trim().replace(';', '').split(' <== ');
				body.push(`    ${m[1]} === ${m[0]};`);
				cost += 1;
				return true;
			}
			// or: a bit input is a bit
			const b = pool.filter((e) => e.input && e.input.kind === 'bit');
			if (!b.length) return false;
			const x = rng.pick(b);
			body.push(`    ${x.ref} * (${x.ref} - 1) === 0;`);
			cost += 1;
			return true;
		},
		poseidon() {
			const k = rng.int(1, 2);
			// constraints of Poseidon(k) with its input assignments, per optimisation
			const c0 = { '--O0': [585, 772], '--O1': [420, 522], '--O2': [218, 245] }[opt][k - 1];
			if (cost + c0 + 20 > budget) return false;
			const c = comp();
			used.add('poseidon');
			body.push(`    component ${c} = Poseidon(${k});`);
			for (let i = 0; i < k; i++) body.push(`    ${c}.inputs[${i}] <== ${anyRef().ref};`);
			pool.push({ ref: `${c}.out`, bits: null });
			cost += c0;
			features.push(`poseidon${k}`);
			return true;
		},
	};

	// --- inputs: 2..8 scalars of mixed kinds, sometimes an array; two of them equal sometimes
	const nScalars = rng.int(2, 8);
	for (let i = 0; i < nScalars; i++) addInput(rng.weighted({ any: 4, small: 3, bit: 2, nonzero: 1 }));
	if (rng.chance(0.4)) addInputArray(rng.int(1, 4), rng.pick(['any', 'small']));
	if (rng.chance(0.3)) {
		const a = rng.pick(inputs.filter((x) => x.len === 0)), b = rng.pick(inputs.filter((x) => x.len === 0));
		// same kind, and for small inputs a bound no larger than b's
		if (a !== b && a.kind === b.kind && (a.kind !== 'small' || a.bits <= b.bits)) b.values[0] = a.values[0];
	}
	// an input that no constraint uses (an empty column), sometimes
	let unused = null;
	if (rng.chance(0.15)) {
		unused = { name: 'x' + inputs.length, len: 0, values: [anyValue(rng)], pub: false, kind: 'unused' };
		inputs.push(unused);
	}

	// --- body: operations until the budget is spent
	const weights = {
		mul: 8, lin: 4, select: 2, chain: 2, tree: 2, wsum: 1, pow: 2,
		bits: 2, cmp: 2, iszero: 2, inverse: 1, assert: 1, poseidon: budget >= 300 ? 1 : 0,
	};
	ops.mul(); // at least one multiplication
	for (let tries = 0; tries < 400 && cost < budget; tries++) {
		const before = { cost, body: body.length, pool: pool.length, nsig, ncomp, nf: features.length };
		const op = rng.weighted(weights);
		if (!ops[op]()) continue;
		if (cost > budget) {
			// undo the operation that went over
			cost = before.cost;
			body.length = before.body;
			pool.length = before.pool;
			features.length = before.nf;
			nsig = before.nsig;
			ncomp = before.ncomp;
			break;
		}
	}

	// --- outputs: 0..3, as scalars or as one array
	const nOut = rng.int(0, 3);
	const outDecl = [];
	if (nOut > 0 && rng.chance(0.3)) {
		outDecl.push(`    signal output out[${nOut}];`);
		for (let i = 0; i < nOut; i++) body.push(`    out[${i}] <== ${anyRef().ref};`);
	} else {
		for (let i = 0; i < nOut; i++) {
			outDecl.push(`    signal output o${i};`);
			// an output is a pool entry or a product of two
			if (rng.chance(0.5)) body.push(`    o${i} <== ${anyRef().ref};`);
			else body.push(`    o${i} <== ${anyRef().ref} * ${anyRef().ref};`);
		}
	}

	// --- public inputs: 0..5 of the input names
	const nPub = Math.min(rng.int(0, 5), inputs.length);
	const order = inputs.slice();
	for (let i = order.length - 1; i > 0; i--) {
		const j = rng.int(0, i);
		[order[i], order[j]] = [order[j], order[i]];
	}
	for (let i = 0; i < nPub; i++) order[i].pub = true;
	const pubNames = inputs.filter((x) => x.pub).map((x) => x.name);

	// --- padding to the edge of a domain, from the first compile of this same circuit
	let padNote = `edge=${edge}`;
	if (edge !== 'none' && firstR1cs) {
		const info = r1csInfo(firstR1cs);
		const total = info.constraints + info.pub + 1;
		let p = 1;
		while (p < total) p *= 2;
		let target = p;
		if (edge === 'past') target = total === p / 2 + 1 ? total : p + 1 <= MAX_DOMAIN ? p + 1 : p;
		if (target > MAX_DOMAIN) target = total; // does not fit: leave it
		const pad = target - total;
		if (pad > 0) {
			// a chain of multiplications, one constraint each at any optimisation
			const a = pool[0].ref, b = pool[pool.length - 1].ref;
			body.push(`    // padding: ${pad} multiplications, to nConstraints + nPublic + 1 = ${target}`);
			body.push(`    signal pad[${pad}];`, `    pad[0] <== ${a} * ${b};`);
			if (pad > 1) body.push(`    for (var i = 1; i < ${pad}; i++) {`, `        pad[i] <== pad[i-1] * ${a};`, '    }');
		}
		padNote = `edge=${edge}: ${info.constraints}+${info.pub}+1=${total}, padded by ${pad} to ${target}`;
	}

	// --- the circuit text
	const out = [];
	out.push(`// circom-flags: ${opt}`);
	out.push(`// random circuit from gen-circuit.js, seed ${seed}`);
	out.push('pragma circom 2.0.0;');
	if (used.has('comparators')) out.push('include "circomlib/circuits/comparators.circom";');
	else if (used.has('bitify')) out.push('include "circomlib/circuits/bitify.circom";');
	if (used.has('poseidon')) out.push('include "circomlib/circuits/poseidon.circom";');
	out.push('');
	for (const t of Object.keys(TEMPLATES)) if (used.has(t)) out.push(TEMPLATES[t]);
	out.push('template Rand() {');
	for (const x of inputs) out.push(x.len ? `    signal input ${x.name}[${x.len}];` : `    signal input ${x.name};`);
	out.push(...outDecl);
	out.push(...body);
	out.push('}');
	out.push('');
	out.push(pubNames.length ? `component main {public [${pubNames.join(', ')}]} = Rand();` : 'component main = Rand();');
	out.push('');

	const input = {};
	for (const x of inputs) input[x.name] = x.len ? x.values.map(String) : x.values[0].toString();

	const nPubSignals = nOut + inputs.filter((x) => x.pub).reduce((s, x) => s + (x.len || 1), 0);
	const summary = `${opt} budget ${budget} est ${cost}, ${inputs.length} inputs (${pubNames.length} public),` +
		` ${nOut} outputs, ${nPubSignals} public signals${unused ? ', an unused input' : ''}` +
		`${features.length ? ', ' + features.join(' ') : ''}; ${padNote}`;
	return { text: out.join('\n'), input, summary };
}

// ---------------------------------------------------------------------------------------

function main() {
	const args = process.argv.slice(2);
	if (args[0] === '--info' && args.length === 2) {
		const i = r1csInfo(args[1]);
		console.log(`${i.constraints} ${i.pub}`);
		return;
	}
	if (args.length < 3 || args.length > 4) {
		console.error('usage: node gen-circuit.js SEED OUTDIR NAME [FIRST.r1cs] | --info X.r1cs');
		process.exit(2);
	}
	const [seed, outdir, name, first] = args;
	const g = generate(seed, first);
	fs.mkdirSync(outdir, { recursive: true });
	fs.writeFileSync(path.join(outdir, name + '.circom'), g.text);
	fs.writeFileSync(path.join(outdir, name + '.input.json'), JSON.stringify(g.input, null, 1) + '\n');
	console.log(g.summary);
}

main();
