#include <gtest/gtest.h>
TEST(Podplan, Placeholder) {}
