# Developer entry points for the dpsco package.
#
#   make deps     install the system and R packages the build needs (idempotent)
#   make install  deps + R CMD build + R CMD INSTALL (vignettes included)
#   make run      install + the BlogFeedback example (inst/scripts/blog_lasso.R)
#   make check    deps + the C warnings and structure checks + R CMD build +
#                 R CMD check --as-cran, then a verdict
#   make structure the structure rules alone (tools/check-structure.R)
#   make report   the verdict alone, read from an existing dpsco.Rcheck/
#   make sanitize tests and examples on a build with ASan and UBSan
#   make valgrind tests and examples under valgrind's memcheck
#   make audit    the long empirical privacy audit (tests/testthat/test-audit*.R)
#   make cluster  the sharded fits on real two-worker socket and MPI
#                 clusters (tests/testthat/test-shards.R, whose cluster
#                 tests --as-cran skips)
#   make deps-debug  the extra Debian packages `make valgrind` needs
#   make deps-cluster  the extra Debian packages `make cluster` needs
#
# Everything comes from Debian's archive where it can: R itself is the
# distribution's R, so the R packages are taken as r-cran-* builds that
# match it; the few that Debian lacks come from CRAN (CRAN_PKGS).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

PKG     := dpsco
VERSION := $(shell sed -n 's/^Version:[[:space:]]*//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
CHECKDIR := $(PKG).Rcheck

R       ?= R
RSCRIPT ?= Rscript

# Debian packages needed to build, test and check the package: the imports
# cli and generics, the Suggests (bigmemory, conquer, glmnet, knitr, mlbench,
# parallelly, rmarkdown, testthat and withr, which the tests and vignettes
# use; R CMD check runs with _R_CHECK_FORCE_SUGGESTS_=true, so all must be
# installed), roxygen2 for the documentation, pandoc for the vignette, qpdf
# and tidy for R CMD check --as-cran, and the R toolchain itself
# (r-base-dev brings the C compiler).
DEB_PKGS := r-base-dev r-cran-bigmemory r-cran-cli r-cran-conquer r-cran-generics r-cran-glmnet r-cran-knitr r-cran-mlbench r-cran-parallelly r-cran-rmarkdown \
            r-cran-roxygen2 r-cran-testthat r-cran-withr pandoc qpdf tidy
# Suggests that Debian's archive lacks (bookworm): parsnip and workflows, for
# the tidymodels engine and its test (tests/testthat/test-parsnip.R).
# tools/install-cran.R installs them and every dependency at the version
# their DESCRIPTION files require, from Debian when its r-cran-* build is
# new enough and otherwise from CRAN's source into
# /usr/local/lib/R/site-library (first in Debian's library path).  On a
# machine with DEB_PKGS alone (whose closure brings Debian's tidyverse, too
# old for parsnip) that was one Debian package (r-cran-prettyunits) and 13
# CRAN builds (parsnip, workflows, recipes, hardhat, dplyr, rlang, vctrs,
# cli, tibble, pillar, lifecycle, modelenv, sparsevctrs) in about 3.5
# minutes on 2 cores; a second run only checks that they load (2 s).
CRAN_PKGS := parsnip workflows
# R packages that must load afterwards (a copy in any library will do).
R_PKGS   := cli generics bigmemory conquer glmnet knitr mlbench parallelly rmarkdown roxygen2 testthat withr $(CRAN_PKGS)
# Also needed by `make valgrind` (ASan and UBSan come with gcc).
DEB_PKGS_DEBUG := valgrind
# Also needed by `make cluster`: Open MPI's development package, which
# depends on its runtime (openmpi-bin: orted, which starts the workers that
# Rmpi spawns) and so makes the MPI under Rmpi Open MPI, whose OMPI_*
# settings the target uses (r-cran-rmpi alone asks only for Debian's
# default MPI).
# Rmpi and snow start the MPI cluster of tools/mpi-fits.R.  They are not
# in the package's Suggests: only that script, outside the built package,
# uses them (and R CMD check --as-cran notes snow as superseded).
DEB_PKGS_CLUSTER := libopenmpi-dev r-cran-rmpi r-cran-snow
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

.PHONY: all deps deps-debug deps-cluster install run check report clean cwarn structure sanitize valgrind audit cluster

all: check

# Installs whichever of the Debian packages in $(1) are missing.
define apt_install
@missing=""; \
for p in $(1); do \
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
  echo "deps: all Debian packages present ($(words $(1)))"; \
fi
endef

deps:
	$(call apt_install,$(DEB_PKGS))
	@SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo"; \
	$$SUDO $(RSCRIPT) --vanilla tools/install-cran.R $(CRAN_PKGS)
	@$(RSCRIPT) --vanilla -e '$(R_CHECK_LOAD)'

# Installs from the built tarball, so that the vignettes are built and
# installed too (vignette(package = "dpsco") lists them; R CMD INSTALL on
# the source directory installs none).  Objects are removed first:
# R CMD INSTALL does not track header changes.
install: deps
	rm -f src/*.o src/*.so
	rm -f $(PKG)_*.tar.gz
	$(R) CMD build .
	$(R) CMD INSTALL --no-multiarch $(TARBALL)
	@$(RSCRIPT) --vanilla -e 'v <- vignette(package = "$(PKG)")$$results; if (!NROW(v)) stop("no vignette installed"); cat("install: vignettes:", v[, "Item"], "\n")'

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
check: deps cwarn structure
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

deps-debug:
	$(call apt_install,$(DEB_PKGS_DEBUG))

deps-cluster:
	$(call apt_install,$(DEB_PKGS_CLUSTER))
	@$(RSCRIPT) --vanilla -e 'for (p in c("Rmpi", "snow")) if (!requireNamespace(p, quietly = TRUE)) stop("R package missing after deps-cluster: ", p)'

# Installs the package into the private library $(1)/lib, compiled with the
# extra C flags $(2) through a generated Makevars file (R_MAKEVARS_USER), so
# neither ~/.R/Makevars nor the default library are touched.  The build is
# not test-loaded: an ASan build loads only into a process with the ASan
# runtime preloaded, which the test run below provides.
define private_install
rm -rf $(1) && mkdir -p $(1)/lib
cc=$$($(R) CMD config CC); \
printf 'CC = %s %s\nCFLAGS = -O1 -g -Wall -pedantic\n' "$$cc" "$(2)" > $(1)/Makevars
rm -f src/*.o src/*.so
R_MAKEVARS_USER=$(CURDIR)/$(1)/Makevars $(R) CMD INSTALL --no-multiarch --no-test-load -l $(1)/lib . > $(1)/install.log 2>&1 || { cat $(1)/install.log; exit 1; }
rm -f src/*.o src/*.so
endef

# AddressSanitizer and UndefinedBehaviorSanitizer on dpsco's C code, over
# the testthat suite and every man-page example (tools/run-tests.R).  The
# privacy audits (test-audit*.R, SAN_EXCLUDE) are left out: they repeat,
# thousands of times, releases whose C paths the unit tests already run.
# Debian's R is not built with ASan, so the runtimes are preloaded into R
# (ASan must come first in the process's library list).  detect_leaks=0:
# R keeps much of its heap until exit by design, so LeakSanitizer would
# report R itself; leaks are checked by `make valgrind`.  Any report aborts R
# (-fno-sanitize-recover, halt_on_error) and so fails the target, as does a
# failed test.  allocator_may_return_null=1 keeps R's own handling of a
# failed huge allocation (an R error) instead of an ASan abort.
# float-cast-overflow (a double turned into an int that cannot hold it, e.g.
# an index) is undefined behaviour outside gcc's "undefined" group.  Blind
# spot: R_alloc rounds each buffer up and keeps small ones in R's own pages,
# so a write just past an R_alloc'd buffer may go unseen (valgrind too).
# The long steps (make sanitize, make valgrind, make audit) run as PARTS
# processes side by side, each taking the next test file as it becomes
# free (tools/run-parts.sh).
PARTS     ?= 2
SAN_DIR   := dpsco.sanitize
SAN_EXCLUDE ?= ^audit
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all

sanitize: deps
	$(call private_install,$(SAN_DIR),$(SAN_FLAGS))
	@cc=$$($(R) CMD config CC); \
	start=$$(date +%s); status=0; \
	ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:allocator_may_return_null=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	R_LIBS=$(SAN_DIR)/lib tools/run-parts.sh $(PARTS) sanitize $(SAN_DIR) \
	  env LD_PRELOAD="$$($$cc -print-file-name=libasan.so) $$($$cc -print-file-name=libubsan.so)" \
	  $(RSCRIPT) --vanilla tools/run-tests.R --label=sanitize \
	  $(if $(SAN_EXCLUDE),--exclude='$(SAN_EXCLUDE)') \
	  2>&1 | tee $(SAN_DIR)/tests.log || status=$$?; \
	echo "sanitize: took $$(( $$(date +%s) - start )) s"; \
	if grep -qE '^==[0-9]+==ERROR: |^SUMMARY: [A-Za-z]+Sanitizer|runtime error:' $(SAN_DIR)/tests.log; then \
	  echo "sanitize: FAILED: sanitizer report above"; status=1; fi; \
	if [ $$status -ne 0 ]; then echo "sanitize: FAILED (exit status $$status)"; fi; \
	grep -E '^sanitize: [0-9]+ passed' $(SAN_DIR)/tests.log | tail -n 1 || echo "sanitize: 0 passed, 1 failed, 0 skipped"; \
	exit $$status

# Valgrind's memcheck over the testthat suite and the man-page examples, on
# a -O1 -g build (tools/run-tests.R under `R -d valgrind`; VG_FILTER=regex
# limits the test files; DPSCO_MEMCHECK=true lets a test cut loops that
# repeat a C path it has already run once, as R runs some 30 times slower
# under memcheck).  Fails on any memory error in the process and on
# any definite leak allocated by dpsco's code (tools/valgrind-verdict.awk);
# R's own still-reachable and possibly-lost blocks are not errors.  Leaks
# are not counted in valgrind's exit status (--errors-for-leak-kinds=none)
# so that the verdict can tell dpsco's from R's.  The closing line counts
# the tests and examples plus the memcheck verdict as one more test.
VG_DIR    := dpsco.valgrind
VG_FILTER ?=
VALGRIND  := valgrind --error-exitcode=1 --leak-check=full \
             --errors-for-leak-kinds=none --fullpath-after= --num-callers=30

valgrind: deps deps-debug
	$(call private_install,$(VG_DIR),)
	@start=$$(date +%s); status=0; \
	DPSCO_MEMCHECK=true R_LIBS=$(VG_DIR)/lib tools/run-parts.sh $(PARTS) valgrind $(VG_DIR) \
	  $(R) --vanilla --no-echo -d "$(VALGRIND) --log-file=$(VG_DIR)/valgrind-@K@.log" \
	  -f tools/run-tests.R --args --label=valgrind $(if $(VG_FILTER),--filter='$(VG_FILTER)') \
	  2>&1 | tee $(VG_DIR)/tests.log || status=$$?; \
	echo "valgrind: took $$(( $$(date +%s) - start )) s"; \
	mem=1; for log in $(VG_DIR)/valgrind-*.log; do \
	  echo "valgrind: memcheck verdict on $$log"; \
	  awk -v src=$(CURDIR)/src/ -f tools/valgrind-verdict.awk $$log || mem=0; done; \
	counts=$$(sed -nE 's/^valgrind: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$$/\1 \2 \3/p' $(VG_DIR)/tests.log | tail -n 1); \
	read -r pass fail skip <<<"$${counts:-0 1 0}"; \
	if [ $$mem -eq 1 ]; then pass=$$((pass + 1)); else fail=$$((fail + 1)); status=1; fi; \
	echo "valgrind: $$pass passed, $$fail failed, $$skip skipped"; \
	exit $$status

# The long version of the empirical privacy audit: every release of every
# method on data sets that differ by one record added or removed at the
# same public_n (both data-size cases, both directions), single releases
# up to 10^5 times; fails if an epsilon lower bound exceeds the accounted
# epsilon or a deliberately broken variant goes undetected
# (test-audit*.R), in PARTS processes side by side; `make check` runs
# only the quick one (about a minute and a half).
AUDIT_DIR := dpsco.audit

audit: deps
	$(call private_install,$(AUDIT_DIR),)
	@start=$$(date +%s); \
	DPSCO_AUDIT_LONG=true R_LIBS=$(AUDIT_DIR)/lib tools/run-parts.sh $(PARTS) audit $(AUDIT_DIR) \
	  $(RSCRIPT) --vanilla tools/run-tests.R --filter='^audit' --no-examples --label=audit; \
	echo "audit: took $$(( $$(date +%s) - start )) s"

# The sharded fits (tests/testthat/test-shards.R) start two-worker socket
# clusters on localhost and, in a coordinator process of their own
# (tools/mpi-fits.R), a two-worker MPI cluster (snow and Rmpi on
# Open MPI), whose workers load the package from the private library; R CMD
# check --as-cran skips them (skip_on_cran()), so this is their CI step.
# DPSCO_TEST_MPI=true makes an MPI cluster that does not start (or a
# coordinator that fails or hangs for 5 minutes) a failed test, not a skip.
# Open MPI's launcher refuses to run as root unless both
# OMPI_ALLOW_RUN_AS_ROOT* variables are set (the spawn from a singleton
# used here has run as root without them, but CI runs as root, and they
# change nothing for other users); without oversubscribe the spawn fails
# when the coordinator and its two workers outnumber the cores ("not
# enough slots" on 2 cores).  About 75 s on 2 cores: the build 30 s, the
# tests 40 s (the MPI one about 10 s of them).
CLUSTER_DIR := dpsco.cluster

cluster: deps deps-cluster
	$(call private_install,$(CLUSTER_DIR),)
	@start=$$(date +%s); status=0; \
	NOT_CRAN=true DPSCO_TEST_MPI=true \
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	OMPI_MCA_rmaps_base_oversubscribe=1 \
	R_LIBS=$(CURDIR)/$(CLUSTER_DIR)/lib $(RSCRIPT) --vanilla tools/run-tests.R \
	  --filter='^shards' --no-examples --label=cluster || status=$$?; \
	echo "cluster: took $$(( $$(date +%s) - start )) s"; \
	if [ $$status -ne 0 ]; then echo "cluster: FAILED (exit status $$status)"; fi; \
	exit $$status

# The C sources must compile silently under -Wall -Wextra -pedantic, with
# and without OpenMP.
cwarn:
	@inc=$$($(R) RHOME)/include; [ -d "$$inc" ] || inc=$$($(RSCRIPT) -e 'cat(R.home("include"))'); \
	cc=$$($(R) CMD config CC); \
	for f in src/*.c; do \
	  for omp in "" -fopenmp; do \
	    $$cc -I"$$inc" $$omp -Wall -Wextra -pedantic -Werror -fsyntax-only "$$f" || exit 1; \
	  done; \
	done; \
	echo "cwarn: src/*.c compile silently with -Wall -Wextra -pedantic, with and without -fopenmp"

# The house's structure rules (tools/check-structure.R): each rule first
# catches a planted violation, then the tree must have none beyond the
# allowed list tools/structure-allowed.txt.
structure:
	$(RSCRIPT) tools/check-structure.R --self-test
	$(RSCRIPT) tools/check-structure.R

clean:
	rm -rf $(CHECKDIR) $(SAN_DIR) $(VG_DIR) $(AUDIT_DIR) $(CLUSTER_DIR) $(PKG)_*.tar.gz blog_path.png
	rm -f src/*.o src/*.so src/*.dll
