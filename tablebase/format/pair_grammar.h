// The compact form of a PAIRS section's grammar (FORMAT.md, "PAIRS sections"): its rules and its
// symbols' Huffman code lengths as a bit stream, about 2.4 bytes per symbol against 5 as plain
// u16 pairs and u8 lengths. The symbols are numbered by
// generation (a pair's generation is one more than its children's highest; the codes are
// generation 0), and within a generation by left child, then right child: a generation's left
// children then never decrease and take a Rice code of their gaps, its right children a fixed
// width (those of the symbols before the generation). The code lengths take a Huffman code of
// their own. The loader expands it into the reader's tables; probes never read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pythia::tb::pairs {

struct PairRule {
    uint16_t left, right;  // both below the rule's own symbol
};

// Huffman code lengths of `freq` (0 for absent symbols), at most MAX_CODE_BITS: frequencies are
// flattened until the longest code fits.
std::vector<uint8_t> code_lengths(std::vector<uint64_t> freq);
// Canonical codes of those lengths: by (length, symbol), each length's codes after the shorter ones.
std::vector<uint32_t> canonical_codes(const std::vector<uint8_t>& len);

// The numbering above: the new number of each symbol of `rules` (indexed by symbol; entries below
// `num_terminals` are the codes, which keep their numbers).
std::vector<uint16_t> generation_order(uint32_t num_terminals, const std::vector<PairRule>& rules);

// Appends the bit stream of `rules` (already in generation_order, indexed by symbol) and of `len`
// (a code length per symbol, at most MAX_CODE_BITS), padded to a whole byte.
void write_grammar(std::vector<uint8_t>& out, uint32_t num_terminals, const std::vector<PairRule>& rules,
                   const std::vector<uint8_t>& len);

// Reads the bit stream at [p, end) for `num_symbols` symbols; false with `why` set if it is not
// one (it never reads outside the range). Each rule's children are below it; the code lengths are
// at most MAX_CODE_BITS (whether they make a prefix code is the caller's check).
bool read_grammar(const uint8_t* p, const uint8_t* end, uint32_t num_terminals, uint32_t num_symbols,
                  std::vector<PairRule>& rules, std::vector<uint8_t>& len, std::string* why);

}  // namespace pythia::tb::pairs
