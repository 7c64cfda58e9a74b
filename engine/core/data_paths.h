// Where Pythia finds the data it ships with, relative to its own binary, so that a moved
// checkout or a copied binary keeps its book and tables. No path is fixed at build time.
//
//   a checkout:   <checkout>/build/<preset>/pythia   tables in <checkout>/tablebases/
//                                                    book   in <checkout>/build/<preset>/book/
//   a copy:       <folder>/pythia                    tables in <folder>/tablebases/
//                                                    book   in <folder>/book/pythia.bin
// The UCI options TablebasePath and BookFile, and the tools' --dir and --book, override these.
#pragma once

#include <filesystem>

namespace pythia {

// The folder of the running executable (from /proc/self/exe); empty if it cannot be read.
std::filesystem::path executable_dir();

// The checkout `exe_dir` belongs to when it is a build folder <checkout>/build/<preset>
// (recognised by the checkout's own files), else empty.
std::filesystem::path checkout_of(const std::filesystem::path& exe_dir);

// The default tablebase folder for a binary in `exe_dir`: the checkout's tablebases/ when the
// binary is in a checkout's build folder, else tablebases/ beside the binary. It may not exist
// yet (`tb generate` creates it).
std::filesystem::path default_tablebase_dir(const std::filesystem::path& exe_dir);
std::filesystem::path default_tablebase_dir();  // for the running binary

// The book made with the binary: book/pythia.bin beside it.
std::filesystem::path own_book_file(const std::filesystem::path& exe_dir);

}  // namespace pythia
