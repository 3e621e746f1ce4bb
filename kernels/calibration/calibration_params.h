// Arguments shared by the calibration microbenchmarks (kernels/calibration/*.metal).
//
// Every microbenchmark repeats a fixed, hand-unrolled body `reps` times and stores its result
// only when it equals `sentinel` (a value the host chooses so that it never does), so that a
// real Metal compiler cannot remove the work while the store itself costs nothing measurable.
// The host times two launches that differ only in `reps` and divides the difference by the
// number of operations added: constant costs (dispatch, the first and last latencies, the
// conditional store) cancel out.
//
// Plain `unsigned int` and `float` fields, no includes: the same header compiles as Metal and
// as host C++ with one layout (the host fills a CalibParams and binds it).
#pragma once

struct CalibParams {
  unsigned int reps;    // repetitions of the unrolled body
  unsigned int stride;  // elements between consecutive loads of one thread (streaming kernels)
  float seed;           // starting value of the arithmetic chains
  float sentinel;       // the result is stored only if equal to this (never, by construction)
};

// Textual repetition used to unroll the bodies by hand (no loop control between the ops).
#define CALIB_REP4(s) s s s s
#define CALIB_REP8(s) CALIB_REP4(s) CALIB_REP4(s)
#define CALIB_REP64(s) CALIB_REP8(CALIB_REP8(s))
#define CALIB_REP256(s) CALIB_REP4(CALIB_REP64(s))
