library(testthat)
library(dpsco)

test_check("dpsco")
