// SHA-256 digests (FIPS 180-4), through OpenSSL's libcrypto (EVP_Digest).
#pragma once

#include <string>
#include <string_view>

namespace vmafx {

/// The SHA-256 digest of `bytes`, as 64 lowercase hexadecimal digits (as `sha256sum` prints
/// it). Throws Error if libcrypto fails.
std::string sha256_hex(std::string_view bytes);

}  // namespace vmafx
