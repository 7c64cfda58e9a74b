# The longest tests first: ctest -j orders tests by COST, and without the times of an earlier run
# (a fresh build tree, as in CI) a long test started last keeps one core busy alone at the end.
# Rough release seconds; only the order matters. A name that no longer exists is ignored, so keep
# this list in step with the tests' names. The first two read the shared compact-form files
# (tb_test_tables.h, compact_dir): the first to start writes them, with two threads, while the
# other waits, before the other tests that read them start.
set(_pythia_test_costs
  "resolved DTM files load every value as generated and are smaller" 100
  "files that store one side to move load every value as generated" 90
  "uci stress: random valid command sequences get a legal bestmove and readyok in time" 80
  "subtables loaded with only the sides to move a table looks up give the same table" 75
  "the block cache returns the bytes of a full decode, in any order of probes" 70
  "generated tables equal Gaviota DTM and Syzygy WDL/DTZ everywhere" 65
  "the pair codec decodes every stream to what was encoded" 60
  "a DTM probed alone is exact where captures and promotions decide it" 50
  "resolved DTM files probe as generated, root moves included" 45
  "a side left out is probed as generated, root moves and en passant included" 40
  "a DTM probed within a window is exact inside it and a bound on the right side outside" 35
  "a left-out side's DTZ probes as generated" 30
)
list(LENGTH _pythia_test_costs _n)
math(EXPR _last "${_n} - 1")
foreach(_i RANGE 0 ${_last} 2)
  math(EXPR _j "${_i} + 1")
  list(GET _pythia_test_costs ${_i} _name)
  list(GET _pythia_test_costs ${_j} _cost)
  set_tests_properties("${_name}" PROPERTIES COST ${_cost})
endforeach()
