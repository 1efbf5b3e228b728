// SPDX-License-Identifier: Apache-2.0
// The support matrix as Markdown: the content of the README support block
// and of `jetgate support --format md`. Deterministic: rows and gates sorted,
// no dates but evidence dates, and no free text from evidence (reasons may
// hold paths or host names; only recorded versions and names appear).
#pragma once

#include <string>

#include "jetgate/claims/support_matrix.hpp"

namespace jetgate::report {

std::string render_support_markdown(const claims::SupportMatrix& matrix);

}  // namespace jetgate::report
