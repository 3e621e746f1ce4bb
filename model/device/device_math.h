// Figures derived from a DeviceSpec in one place: peak rates, machine balance, time conversion.
#pragma once

#include "model/device/device_spec.h"

namespace marlin::model {

// Peak FP16 FMA rate of the whole GPU in FLOP/s (an FMA counts as two FLOPs).
double peak_fp16_flops(const GpuSpec& gpu, const PipeSpec& pipes);

// Peak rate of 8x8x8 half simdgroup matrix multiply-accumulates, in FLOP/s of the whole GPU.
double peak_matmul_f16_flops(const GpuSpec& gpu, const PipeSpec& pipes);

// FLOPs per DRAM byte at which the device turns from memory- to compute-bound.
double machine_balance(const DeviceSpec& device);

// Core-clock cycles to seconds and back (the only place the conversion happens).
double cycles_to_seconds(const GpuSpec& gpu, double cycles);
double seconds_to_cycles(const GpuSpec& gpu, double seconds);

}  // namespace marlin::model
