/* circom_timer.cpp - times circom's own C++ witness generator in process, for
 * `zkarena bench witness --cpp DIR`: built with circom's generated main.cpp (its main renamed
 * by -Dmain=zka_circom_main, so that its loadCircuit and loadJson are called as they are),
 * circom's calcwit.cpp, fr.cpp and fr.asm. Loads the circuit once, then computes the witness
 * of input.json RUNS times (a fresh Circom_CalcWit each, the input parsed each time, as
 * circom's main does per witness) and prints each time in seconds, one per line; the last
 * witness is written to OUT.wtns with circom's writer, for the byte comparison. */
#undef main /* -Dmain=zka_circom_main renamed circom's; this file's is the driver */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "calcwit.hpp"
#include "circom.hpp"

Circom_Circuit *loadCircuit(std::string const &datFileName);
void loadJson(Circom_CalcWit *ctx, std::string filename);
void writeBinWitness(Circom_CalcWit *ctx, std::string wtnsFileName);

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s CIRCUIT.dat input.json RUNS OUT.wtns\n", argv[0]);
		return 2;
	}
	Circom_Circuit *circuit = loadCircuit(argv[1]);
	int runs = atoi(argv[3]);
	Circom_CalcWit *ctx = NULL;
	for (int i = 0; i < runs; i++) {
		delete ctx;
		auto t0 = std::chrono::steady_clock::now();
		ctx = new Circom_CalcWit(circuit);
		loadJson(ctx, argv[2]);
		auto t1 = std::chrono::steady_clock::now();
		printf("%.9f\n", std::chrono::duration<double>(t1 - t0).count());
	}
	writeBinWitness(ctx, argv[4]);
	return 0;
}
