#include "book/polyglot_entry.h"

#include "engine/core/movegen.h"

namespace pythia {

namespace {

uint64_t read_big_endian(const uint8_t* bytes, int size) {
    uint64_t n = 0;
    for (int i = 0; i < size; ++i) n = (n << 8) | bytes[i];
    return n;
}

void write_big_endian(uint64_t n, uint8_t* bytes, int size) {
    for (int i = size - 1; i >= 0; --i, n >>= 8) bytes[i] = uint8_t(n & 0xFF);
}

}  // namespace

PolyglotEntry read_polyglot_entry(const uint8_t* bytes) {
    PolyglotEntry e;
    e.key = read_big_endian(bytes, 8);
    e.move = uint16_t(read_big_endian(bytes + 8, 2));
    e.weight = uint16_t(read_big_endian(bytes + 10, 2));
    e.learn = uint32_t(read_big_endian(bytes + 12, 4));
    return e;
}

void write_polyglot_entry(const PolyglotEntry& entry, uint8_t* bytes) {
    write_big_endian(entry.key, bytes, 8);
    write_big_endian(entry.move, bytes + 8, 2);
    write_big_endian(entry.weight, bytes + 10, 2);
    write_big_endian(entry.learn, bytes + 12, 4);
}

uint16_t encode_polyglot_move(Move m) {
    Square from = m.from(), to = m.to();
    if (m.kind() == Move::CASTLING)  // king takes its rook: h-file rook for O-O, a-file for O-O-O
        to = make_square(to > from ? FILE_H : FILE_A, rank_of(from));
    int promotion = m.kind() == Move::PROMOTION ? m.promotion() - KNIGHT + 1 : 0;
    return uint16_t(to | (from << 6) | (promotion << 12));
}

Move decode_polyglot_move(const Position& pos, uint16_t raw) {
    for (Move m : MoveList(pos))
        if (encode_polyglot_move(m) == raw) return m;
    return Move::none();
}

}  // namespace pythia
