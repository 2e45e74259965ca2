// What a feature folder defines for the registry (docs/design.md, "How to
// add a feature"): for each name in its exactvmaf_add_feature(... REGISTERS
// ...), default NAME, one function
//
//   FeatureInfo <name>_feature_info();
//
// in namespace exactvmaf. registry.cpp declares and calls them, from the list
// CMake generates out of src/features/CMakeLists.txt's registry lines.
#pragma once
#include "exactvmaf/feature.hpp"
