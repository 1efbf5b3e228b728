#pragma once

namespace jetgate {

// "0.1.0"
const char* version();

}  // namespace jetgate
