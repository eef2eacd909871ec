/* vmafx: the libvmaf API version this library implements (libvmaf 3.2.0's interface). */
#ifndef VMAF_VERSION_H
#define VMAF_VERSION_H

#define VMAF_API_VERSION_MAJOR 3
#define VMAF_API_VERSION_MINOR 2
#define VMAF_API_VERSION_PATCH 0

#endif /* VMAF_VERSION_H */
