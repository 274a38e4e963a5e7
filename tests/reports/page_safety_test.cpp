// What keeps data inert in the pages (reports/outputs/page_safety.h): JSON strings that cannot end
// or comment out a script element, SHA-256 by the standard's vectors, and the policy built from it.
#include <gtest/gtest.h>

#include <string>

#include "reports/outputs/page_safety.h"

namespace semsim {
namespace {

TEST(PageSafety, AJsonStringCannotCloseOrCommentOutItsScriptElement) {
  EXPECT_EQ(json_string("</script><script>x</script>"), R"("\u003c/script\u003e\u003cscript\u003ex\u003c/script\u003e")");
  EXPECT_EQ(json_string("<!-- -->"), R"("\u003c!-- --\u003e")");
  EXPECT_EQ(json_string("<img src=x onerror=\"alert(1)\">"), R"("\u003cimg src=x onerror=\"alert(1)\"\u003e")");
  EXPECT_EQ(json_string("\"'&\\"), R"("\"'\u0026\\")");
}

TEST(PageSafety, AJsonStringHasNoRawLineSeparatorOrControlCharacter) {
  // U+2028 and U+2029 (UTF-8 E2 80 A8, E2 80 A9) end a line in older JavaScript.
  EXPECT_EQ(json_string("a\u2028b\u2029c"), R"("a\u2028b\u2029c")");
  EXPECT_EQ(json_string(std::string("a\nb\tc\x01", 6)), R"("a\u000ab\u0009c\u0001")");
  // Other UTF-8 passes as it is, a truncated sequence too (the page's decoder makes it U+FFFD).
  EXPECT_EQ(json_string("\u00b5s \u2212 \xe2\x80"), "\"\u00b5s \u2212 \xe2\x80\"");
}

TEST(PageSafety, Sha256MatchesTheStandardsVectorsAcrossBlockBoundaries) {
  EXPECT_EQ(sha256_base64(""), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  EXPECT_EQ(sha256_base64("abc"), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  EXPECT_EQ(sha256_base64("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE=");
  EXPECT_EQ(sha256_base64(std::string(55, 'a')), "n0OQ+NMMLdkuyfCVtl4rmumwqSWlJY4kHJ8ekQ9zQxg=");
  EXPECT_EQ(sha256_base64(std::string(56, 'a')), "s1Q5pKxvCUi21vnjxq8PX1kM4g8b3nCQ73lwaG7Gc4o=");
  EXPECT_EQ(sha256_base64(std::string(64, 'a')), "/+BU/nrgy23GXDr5th1SCfQ5hR20PQulmXM33xVGaOs=");
  EXPECT_EQ(sha256_base64(std::string(1000, 'a')), "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM=");
}

TEST(PageSafety, ThePolicyRunsOnlyTheGivenScriptsAndLoadsNothing) {
  EXPECT_EQ(page_policy({"abc"}, {""}),
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
            "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='; style-src "
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; base-uri 'none'; form-action 'none'\">");
  EXPECT_NE(page_policy({}, {}).find("script-src 'none'; style-src 'none'"), std::string::npos);
}

}  // namespace
}  // namespace semsim
