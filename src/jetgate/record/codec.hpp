// SPDX-License-Identifier: Apache-2.0
// The one codec between an evidence (or probe) document and a Record: the only
// code that spells the keys a Record holds (from the key table of
// core/document_keys.hpp, and the members of one probe result). Reading is
// lenient: a document from outside (another tool's evidence, a newer jetgate,
// a hand-edited file) never throws; a member that is absent, null or of an
// unexpected type is left unknown, and kept as it came in Record::rest.
// to_json(read(doc)) is doc, byte for byte (RecordCodec.* over every fixture).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "jetgate/record/record.hpp"

namespace jetgate::record {

enum class Keep {
  unknown,  // Record::rest holds every member the codec does not know (to write it back)
  known,    // only the typed members; rest stays empty (for readers that never write)
};

// doc: the document (an object; anything else reads as an empty Record).
Record read(const nlohmann::json& doc, Keep keep = Keep::unknown);
// The document's text; text that is not JSON reads as an empty Record.
Record read(std::string_view text, Keep keep = Keep::unknown);

// The facts alone, from the /platform and /gpu objects of a document (either may
// be null), without copying them: what the gate has before it writes its
// evidence, and what a verdict checks requirements on. Every single-valued fact
// and the GPU devices; not the driver stack's lists nor the "recorded" flags
// (read the whole document for those). Keeps nothing unknown; the head, probes
// and Python runtime stay empty.
Record read_facts(const nlohmann::json* platform, const nlohmann::json* gpu);

// Only what names the lane a document speaks for (its node and kind, and
// whether it ran in a container): three members, for the loader that reads a
// fleet's evidence by the hundred thousand. Everything else stays empty.
Record read_lane(const nlohmann::json& doc);

// The document: Record::rest with every known member written back into it.
nlohmann::json to_json(const Record& r);

}  // namespace jetgate::record
