# The privacy status as every display must state it (privacy_status() in
# R/privacy.R), spelled out for the tests of each display.

status_covered <- paste("Privacy status: covered: the guarantee holds for",
                        "everything the release read from the data.")
status_not_covered <- paste("Privacy status: NOT covered by the guarantee,",
                            "which holds for the noisy releases only; read",
                            "from the data without noise")
status_not_private <- paste("Privacy status: not private: no noise was added",
                            "(epsilon = Inf)")
# standardize = TRUE's entry in the record's not_covered
std_reason <- paste("standardize = TRUE read the column means and standard",
                    "deviations of x from the data")
std_fix <- paste("use standardize = \"private\", inside the budget, or",
                 "declare standardize = list(center, scale)")
std_item <- paste0(std_reason, " (fix: ", std_fix, ")")

# Text of a display with its line breaks and wrapping undone.
flat_text <- function(lines) gsub("\\s+", " ", paste(lines, collapse = " "))

# Two two-step fits on x, y with the same seed: one whose guarantee covers
# everything, one with standardize = TRUE (warned about).
clean_and_standardised <- function(x, y, seed) {
  set.seed(seed)
  clean <- dpsco(tuning = "public", x, y, method = "clip", epsilon = 1,
                 iterations = 2, nlambda = 2)
  set.seed(seed)
  testthat::expect_warning(
    std <- dpsco(tuning = "public", x, y, method = "clip", epsilon = 1,
                 iterations = 2, nlambda = 2, standardize = TRUE),
    class = "dpsco_privacy_warning")
  list(clean = clean, std = std)
}

# A number as the displays print it: four significant digits.
num <- function(v) format(signif(v, 4))
