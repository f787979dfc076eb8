// A deliberate layering violation (tests/layering/CMakeLists.txt): the engine, the lowest
// layer of the simulator, including an algorithm header. Built with the engine's include
// path, this must fail to compile; the test layering.build_fails checks that it does.
#include "sim/algorithms/algorithms.hpp"
#include "sim/engine/engine.hpp"
