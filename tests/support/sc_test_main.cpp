// main() for GoogleTest binaries that link SystemC: silences the banner and
// runs the tests from sc_main. ctest runs each test in its own process
// (gtest_discover_tests), because SystemC elaborates only once per process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return RUN_ALL_TESTS();
}
