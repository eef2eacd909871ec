#include "io/shared_library.hpp"

#include <dlfcn.h>

#include "base/error.hpp"

namespace vmafx {

SharedLibrary::SharedLibrary(const std::string& soname) : soname_(soname) {
    // RTLD_LOCAL: the library's symbols serve only lookups through this handle.
    handle_ = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
        const char* reason = ::dlerror();
        throw Error(soname + ": " + (reason ? reason : "cannot be opened"));
    }
}

void* SharedLibrary::symbol(const char* name) const {
    ::dlerror();  // clears an earlier error, so that a null symbol can be told from a failure
    void* address = ::dlsym(handle_, name);
    if (!address) throw Error(soname_ + ": no symbol " + name);
    return address;
}

}  // namespace vmafx
