// SPDX-License-Identifier: Apache-2.0
// The grammars of the values `jetgate init` writes into shell lines and
// ${{ }} expressions of the workflow (issue 21, class 4). Each value is
// checked against its grammar at the option boundary (validate_init_options),
// and nothing outside it is written: no quote, '$', '`', ';', newline or
// leading '-' (a git option) can reach the workflow from an option.
#pragma once

#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::init {

// A container image reference as the distribution project defines it
// (github.com/distribution/reference, reference.go): [HOST[:PORT]/]PATH
// with a :TAG, an @DIGEST or both; PATH components [a-z0-9]+ joined by
// '.', '_', '__' or '-'s.
bool is_image_reference(std::string_view s);

// A branch or tag name that `git check-ref-format --branch` accepts, from a
// conservative alphabet (letters, digits, '.', '_', '-', '/'), not starting
// with '-' (git would read an option), at most 200 characters.
bool is_git_ref_name(std::string_view s);

// An https URL of a git repository: https://HOST[:PORT]/PATH, PATH segments
// of letters, digits, '.', '_', '~' and '-'.
bool is_https_repository_url(std::string_view s);

// A relative path inside the repository: segments of letters, digits, '.',
// '_', '-' and '+', none empty, ".", ".." or starting with '-'.
bool is_repository_relative_path(std::string_view s);

// A release version as jetgate's tarballs name it: digits joined by '.', then
// optionally '-' and letters, digits or '.' ("0.1.0", "0.2.0-rc1").
bool is_release_version(std::string_view s);

// 64 lowercase hex digits.
bool is_sha256_hex(std::string_view s);

// One pip argument the generated script single-quotes: letters, digits and
// ._-+=/:@[],<>~! only (no quote, '$', '`', space or control), not empty.
bool is_pip_word(std::string_view s);

// A DNS-1123 label as Kubernetes names namespaces and most objects
// (apimachinery's IsDNS1123Label): at most 63 characters of [a-z0-9-],
// beginning and ending with [a-z0-9].
bool is_dns1123_label(std::string_view s);

// A DNS-1123 subdomain (IsDNS1123Subdomain), what a node name is: at most 253
// characters, DNS-1123 labels joined by '.'.
bool is_dns1123_subdomain(std::string_view s);

// A five-field cron schedule in the numeric form both GitHub Actions and
// Kubernetes' CronJob read: minute hour day-of-month month day-of-week, each
// '*' or a comma list of N or N-M, each optionally /STEP, every number in its
// field's range (0-59, 0-23, 1-31, 1-12, 0-6), fields separated by single spaces.
bool is_cron_schedule(std::string_view s);

// Refuses writing ROOT/REL when an existing directory on the way (".github"
// a symbolic link, say) resolves outside ROOT.
Status check_inside_project(const std::string& root, const std::string& rel);

}  // namespace jetgate::init
