# Developer entry points for the dpsco package.
#
#   make deps     install the system and R packages the build needs (idempotent)
#   make install  deps + R CMD INSTALL .
#   make run      install + the BlogFeedback example (inst/scripts/blog_lasso.R)
#   make check    deps + R CMD build + R CMD check --as-cran, then a verdict
#   make report   the verdict alone, read from an existing dpsco.Rcheck/
#
# Everything comes from Debian's archive: R itself is the distribution's R,
# so the R packages are taken as r-cran-* builds that match it.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

PKG     := dpsco
VERSION := $(shell sed -n 's/^Version:[[:space:]]*//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
CHECKDIR := $(PKG).Rcheck

R       ?= R
RSCRIPT ?= Rscript

# Debian packages needed to build, test and check the package: the Suggests
# (glmnet, knitr, rmarkdown, testthat and withr, which the tests use),
# roxygen2 for the documentation, pandoc for the vignette, qpdf and tidy for
# R CMD check --as-cran, and the R toolchain itself (r-base-dev brings the C
# compiler).
DEB_PKGS := r-base-dev r-cran-glmnet r-cran-knitr r-cran-mlbench r-cran-rmarkdown \
            r-cran-roxygen2 r-cran-testthat r-cran-withr pandoc qpdf tidy
# R packages that must load afterwards (a copy in any library will do).
R_PKGS   := glmnet knitr mlbench rmarkdown roxygen2 testthat withr
R_CHECK_LOAD := pk <- strsplit("$(R_PKGS)", " ")[[1]]; ok <- vapply(pk, requireNamespace, NA, quietly = TRUE); if (!all(ok)) stop("R packages missing after deps: ", paste(pk[!ok], collapse = ", ")); cat("deps: R packages load:", paste(pk, collapse = ", "), "\n")

# Reads 00check.log; prints each ERROR, WARNING or NOTE block that is not
# allowed, and "@@allowed ..." lines for the allowed ones.  Allowed: the CRAN
# incoming feasibility NOTE when it says only "Maintainer: ..." and "New
# submission", plus invalid-URL entries whose host could not be reached at
# all from this machine (no DNS or no route: this workplace reaches only the
# package registries).  Any other URL problem (404, bad scheme, ...) fails.
define CHECK_VERDICT_AWK
function endurl() {
  if (inurl) {
    if (urltext ~ /Could not resolve host|Failed to connect|Couldn't connect to server/)
      okurl[++nok] = url " (host unreachable from this machine)"
    else
      extra = 1
  }
  inurl = 0; url = ""; urltext = ""
}
function flush(  i) {
  endurl()
  if (kind != "") {
    if (kind == "NOTE" && incoming && !extra) {
      print "@@allowed " head " (only Maintainer / New submission)"
      for (i = 1; i <= nok; i++) print "@@allowed     URL " okurl[i]
    } else {
      printf "%s\n%s", head, body
    }
  }
  kind = ""; body = ""; head = ""; extra = 0; incoming = 0; nok = 0
}
/^\* / {
  flush(); head = $$0; incoming = ($$0 ~ /CRAN incoming feasibility/)
  if ($$0 ~ /\.\.\. .*(ERROR|WARNING|NOTE)$$/) kind = $$NF
  next
}
/^Status:/ { flush(); next }
head != "" && kind == "" && /^ *(\[[^ ]*\] *)?(ERROR|WARNING|NOTE)$$/ {
  kind = $$NF; head = head " " kind; next
}
head == "" { next }
{ body = body $$0 "\n" }
!incoming { next }
/^  URL: / { endurl(); inurl = 1; url = substr($$0, 8); urltext = $$0; next }
inurl && /^    / { urltext = urltext "\n" $$0; next }
{ endurl() }
/^[ \t]*$$/ || /^[ \t]*Maintainer:/ || /^[ \t]*New submission[ \t]*$$/ { next }
/^Found the following \(possibly\) invalid URLs:/ { next }
{ extra = 1 }
END { flush() }
endef
export CHECK_VERDICT_AWK

.PHONY: all deps install run check report clean cwarn

all: check

deps:
	@missing=""; \
	for p in $(DEB_PKGS); do \
	  if ! dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed'; then \
	    missing="$$missing $$p"; \
	  fi; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo"; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	else \
	  echo "deps: all Debian packages present"; \
	fi
	@$(RSCRIPT) --vanilla -e '$(R_CHECK_LOAD)'

# Objects are removed first: R CMD INSTALL does not track header changes.
install: deps
	rm -f src/*.o src/*.so
	$(R) CMD INSTALL --no-multiarch .

run: install
	$(RSCRIPT) inst/scripts/blog_lasso.R

# R CMD check --as-cran, then a verdict from the check log: fail on any ERROR
# or WARNING and on any NOTE except the CRAN incoming "New submission" note
# (which every first submission gets), and print the testthat summary and a
# closing "N passed, M failed, K skipped" line.  The CRAN incoming checks
# need the network to CRAN and are kept on.  _R_CHECK_SYSTEM_CLOCK_=false
# stops the future-timestamps check from asking a time server on the
# internet (which this machine cannot reach) and NOTE-ing when it fails; the
# file timestamps themselves are still compared with the local clock.
check: deps cwarn
	rm -f $(PKG)_*.tar.gz
	rm -rf $(CHECKDIR)
	$(R) CMD build .
	_R_CHECK_FORCE_SUGGESTS_=true _R_CHECK_FUTURE_FILE_TIMESTAMPS_=false \
	  _R_CHECK_SYSTEM_CLOCK_=false \
	  $(R) CMD check --as-cran --no-manual $(TARBALL) || true
	@$(MAKE) --no-print-directory report

# The verdict on an existing $(CHECKDIR) (also usable on its own).
report:
	@log=$(CHECKDIR)/00check.log; \
	if [ ! -f "$$log" ]; then echo "check: $$log not found"; exit 1; fi; \
	echo; echo "==== ERRORs, WARNINGs and NOTEs in $$log ===="; \
	bad=$$(awk "$$CHECK_VERDICT_AWK" "$$log"); \
	allowed=$$(grep '^@@allowed ' <<<"$$bad" | sed 's/^@@allowed /  allowed: /' || true); \
	bad=$$(grep -v '^@@allowed ' <<<"$$bad" || true); \
	if [ -n "$$bad" ]; then echo "$$bad"; else echo "  none"; fi; \
	if [ -n "$$allowed" ]; then echo "$$allowed"; fi; \
	echo; echo "==== Test summary ===="; \
	rout=$(CHECKDIR)/tests/testthat.Rout; \
	[ -f "$$rout" ] || rout=$(CHECKDIR)/tests/testthat.Rout.fail; \
	summary=""; \
	if [ -f "$$rout" ]; then \
	  echo "from $$rout:"; \
	  sed -n '/test_check(/,$$p' "$$rout" | tail -n +2 | head -n 80; \
	  summary=$$(grep -E '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$$rout" | tail -n 1 || true); \
	else \
	  echo "no testthat output in $(CHECKDIR)/tests"; \
	fi; \
	echo; grep -E '^Status:' "$$log" || echo "Status: (no Status line)"; \
	status=0; \
	if [ -n "$$bad" ]; then echo "check: FAILED: the check log has errors, warnings or notes (listed above)"; status=1; fi; \
	if [ -n "$$summary" ]; then \
	  fail=$$(sed -E 's/.*FAIL ([0-9]+).*/\1/' <<<"$$summary"); \
	  skip=$$(sed -E 's/.*SKIP ([0-9]+).*/\1/' <<<"$$summary"); \
	  pass=$$(sed -E 's/.*PASS ([0-9]+).*/\1/' <<<"$$summary"); \
	  if [ "$$fail" -ne 0 ]; then status=1; fi; \
	  if [ "$$pass" -eq 0 ]; then echo "check: FAILED: no test passed"; status=1; fi; \
	  echo "$$pass passed, $$fail failed, $$skip skipped"; \
	else \
	  echo "check: FAILED: no testthat summary found"; status=1; \
	fi; \
	exit $$status

# The C sources must compile silently under -Wall -Wextra -pedantic.
cwarn:
	@inc=$$($(R) RHOME)/include; [ -d "$$inc" ] || inc=$$($(RSCRIPT) -e 'cat(R.home("include"))'); \
	cc=$$($(R) CMD config CC); \
	for f in src/*.c; do \
	  $$cc -I"$$inc" -Wall -Wextra -pedantic -Werror -fsyntax-only "$$f" || exit 1; \
	done; \
	echo "cwarn: src/*.c compile silently with -Wall -Wextra -pedantic"

clean:
	rm -rf $(CHECKDIR) $(PKG)_*.tar.gz blog_path.png
	rm -f src/*.o src/*.so src/*.dll
