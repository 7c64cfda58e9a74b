// The assembler's .incbin copies the net file given by CMake (PYTHIA_EMBEDDED_NET_PATH) into
// the binary's read-only data at build time, so that one pythia file plays with its net.
#include "eval/nnue/embedded_net.h"

#ifdef PYTHIA_EMBEDDED_NET_PATH
asm(".pushsection .rodata\n"
    ".balign 64\n"
    ".globl pythia_embedded_net_begin\n"
    "pythia_embedded_net_begin:\n"
    ".incbin \"" PYTHIA_EMBEDDED_NET_PATH
    "\"\n"
    ".globl pythia_embedded_net_end\n"
    "pythia_embedded_net_end:\n"
    ".popsection\n");
extern "C" const uint8_t pythia_embedded_net_begin[];
extern "C" const uint8_t pythia_embedded_net_end[];
#endif

namespace pythia::nnue {

std::span<const uint8_t> embedded_net_bytes() {
#ifdef PYTHIA_EMBEDDED_NET_PATH
    return {pythia_embedded_net_begin, pythia_embedded_net_end};
#else
    return {};
#endif
}

}  // namespace pythia::nnue
