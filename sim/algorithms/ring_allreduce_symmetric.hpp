// The exact ring all-reduce shortcut is the ring collective's own decision now
// (RingAllReduce::exact_for, sim/collectives/ring_allreduce.hpp); this header only
// forwards set_ring_allreduce_fast_path for the tests that switch it off.
#pragma once

#include "sim/collectives/ring_allreduce.hpp"
