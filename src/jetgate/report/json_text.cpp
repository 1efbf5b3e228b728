#include "jetgate/report/json_text.hpp"

namespace jetgate::report {

std::string json_text(const nlohmann::json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace jetgate::report
