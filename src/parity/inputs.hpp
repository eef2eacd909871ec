// Inputs of the parity gate: the unpacked fixtures, and generated random-content videos.
#pragma once

#include <string>
#include <vector>

#include "parity/gate.hpp"

namespace vmafx {

/// Fixtures of `dir` (each subfolder with fixture.ini, ref.yuv and dist.yuv, as
/// shared/fixtures/prepare.py writes them). Throws Error for a missing folder, a malformed
/// fixture.ini or no fixture at all.
std::vector<ParityInput> fixture_inputs(const std::string& dir);

/// Writes `frames` frames of random content of `format` to the raw file `path`: a smooth
/// pattern plus small noise common to every seed, plus noise of +-`noise` from `seed` (so a
/// video with noise 0 and one with noise > 0 make a reference/distorted pair). Samples stay
/// within the bit depth; little-endian words above 8 bits. Throws Error when it cannot write.
void write_random_video(const std::string& path, const VideoFormat& format, int frames, unsigned seed, int noise);

/// Generated random-content inputs of odd sizes at 8, 10, 12 and 16 bits in `dir` (written
/// there): `count` sizes per bit depth, 4 frames each, seeded, so runs are repeatable. They
/// carry the option-corner cases (ParityInput::corners). `max_side` (odd, at least 33): each
/// size's sides clamped to it (for devices emulated on the CPU); the seeds' draws are the same.
std::vector<ParityInput> random_inputs(const std::string& dir, unsigned count, unsigned seed, int max_side = 431);

/// Writes the raw pair `base`_ref.yuv / `base`_dist.yuv of `frames` frames of `f`: slow
/// gradients (a ramp across, a vignette scaled with the width) with a grain of +-1 code in the
/// reference, and the same gradients quantized to 8-bit steps (bands of 2^(bit_depth - 8)
/// codes) without grain in the distorted video (above 10 bits with 2 codes added where
/// (x + y) % 3 == 0, so that a conversion to 10 bits rounds): content where CAMBI finds bands
/// and its spatial mask passes. Throws Error when it cannot write.
void write_banded_pair(const std::string& base, const VideoFormat& f, int frames);

/// Small banded inputs (write_banded_pair, 433x245 at 8, 10 and 12 bits, 3 frames, in `dir`)
/// carrying the option corners: what the planted-defect tests add to the random inputs, on
/// which cambi scores 0 whatever its kernels do (their noise leaves no flat area).
std::vector<ParityInput> banded_inputs(const std::string& dir);

/// Generated inputs that make sums hard to reproduce (written in `dir`): a bright 2560x1440
/// 16-bit 4:2:0 pair whose squared samples and squared differences add up past 2^53 units of
/// the float squares (float_moment's and float_psnr's running doubles then round); a 3840x2160
/// 8-bit 4:2:0 pair (the longest sums: SSIM windows, PSNR-HVS coefficients); a 640x360 8-bit
/// 4:4:4 pair with identical flat areas beside noisy ones (zero variances, identical blocks,
/// capped and infinite scores); and the inputs where particular metrics are hardest, each
/// carrying those metrics' option corners (ParityInput::corner_metrics): a 3840x2160 10-bit
/// pair of banded gradients (cambi, its largest window at 4K); saturated colours at 4:2:2 8-bit
/// and 4:4:4 10-bit (ciede); a distorted picture sharper than its reference (adm and float_adm
/// with their gain limits); 1920x1080 detail at several scales over 3 frames (speed_chroma and
/// speed_temporal at every prescale). 2 frames each unless said; no other option corners on them.
std::vector<ParityInput> hard_inputs(const std::string& dir);

}  // namespace vmafx
