// The peak value and PSNR cap of upstream libvmaf 3.2.0's float metrics by bit depth (the table
// in the init() of float_psnr.c and of float_ansnr.c, which agree): float_psnr and float_ansnr
// both take theirs from here.
#pragma once

namespace vmafx::float_psnr {

/// Upstream's peak value and PSNR cap at `bit_depth` (8, 10, 12 or 16): (255, 60) at 8 bits,
/// (255.75, 72) at 10, (255.9375, 84) at 12, (255.99609375, 108) at 16, the peak being the
/// largest sample scaled to the 8-bit range as picture_copy scales it. False for any other
/// depth (peak and psnr_max then unchanged).
inline bool peak_and_cap(int bit_depth, double& peak, double& psnr_max) {
    switch (bit_depth) {
    case 8: peak = 255.0, psnr_max = 60.0; return true;
    case 10: peak = 255.75, psnr_max = 72.0; return true;
    case 12: peak = 255.9375, psnr_max = 84.0; return true;
    case 16: peak = 255.99609375, psnr_max = 108.0; return true;
    default: return false;
    }
}

}  // namespace vmafx::float_psnr
