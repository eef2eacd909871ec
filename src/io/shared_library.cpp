#include "io/shared_library.hpp"

#include <dlfcn.h>

#include "base/error.hpp"

namespace vmafx {

SharedLibrary::SharedLibrary(const std::string& soname) : soname_(soname) {
    // RTLD_LOCAL: the library's symbols serve only lookups through this handle.
    handle_ = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
        // The loader's reason names the file it tried ("libx.so.1: cannot open shared object
        // file: ...", "/dir/libx.so.1: invalid ELF header"); otherwise the name goes first.
        const char* reason = ::dlerror();
        const std::string text = reason ? reason : "cannot be opened";
        throw Error(text.find(soname) != std::string::npos ? text : soname + ": " + text);
    }
}

void* SharedLibrary::symbol(const char* name) const {
    void* address = ::dlsym(handle_, name);
    if (!address) throw Error(soname_ + ": no symbol " + name);
    return address;
}

}  // namespace vmafx
