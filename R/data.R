#' BlogFeedback training data
#'
#' Feature vectors for 52,397 blog posts together with the number of comments
#' each post went on to receive. The task is to predict, at a fixed moment
#' called the \emph{basetime}, how many comments a post will get during the
#' following 24 hours from information available up to that moment. This is
#' the training file of the BlogFeedback data, one of the real-data examples
#' for the differentially private lasso methods in this package.
#'
#' @format A data frame with 52,397 rows and 281 columns. Columns 1 to 280 are
#'   the features and column 281 is the response. The 250 columns whose values
#'   are all whole numbers are stored as integer; the other 31 (the source-blog
#'   means, standard deviations and medians, and \code{parent_comments_mean})
#'   are double.
#'
#'   Columns 51 to 60 are ten \emph{base attributes} of the post. Columns 1 to
#'   50 summarise these ten attributes over all posts of the blog that the post
#'   belongs to, and are named \code{src_BASE_STAT}: \code{BASE} runs over the
#'   base attribute names in column order (51 to 60) and, within each base
#'   attribute, \code{STAT} runs over \code{mean}, \code{sd}, \code{min},
#'   \code{max} and \code{median}. For example, columns 1 to 5 are
#'   \code{src_comments_total_mean} to \code{src_comments_total_median} and
#'   columns 46 to 50 are \code{src_links_diff_mean} to
#'   \code{src_links_diff_median}. Every column is listed below.
#'   \describe{
#'     \item{\code{src_comments_total_mean}, \code{src_comments_total_sd},
#'       \code{src_comments_total_min}, \code{src_comments_total_max},
#'       \code{src_comments_total_median}}{
#'       Columns 1-5: mean, standard deviation, minimum, maximum and
#'       median of \code{comments_total} over the posts of the source blog.}
#'     \item{\code{src_comments_last24h_mean}, \code{src_comments_last24h_sd},
#'       \code{src_comments_last24h_min}, \code{src_comments_last24h_max},
#'       \code{src_comments_last24h_median}}{
#'       Columns 6-10: mean, standard deviation, minimum, maximum and
#'       median of \code{comments_last24h} over the posts of the source blog.}
#'     \item{\code{src_comments_24h_to_48h_mean},
#'       \code{src_comments_24h_to_48h_sd}, \code{src_comments_24h_to_48h_min},
#'       \code{src_comments_24h_to_48h_max},
#'       \code{src_comments_24h_to_48h_median}}{
#'       Columns 11-15: mean, standard deviation, minimum, maximum and
#'       median of \code{comments_24h_to_48h} over the posts of the source
#'       blog.}
#'     \item{\code{src_comments_first24h_mean}, \code{src_comments_first24h_sd},
#'       \code{src_comments_first24h_min}, \code{src_comments_first24h_max},
#'       \code{src_comments_first24h_median}}{
#'       Columns 16-20: mean, standard deviation, minimum, maximum and
#'       median of \code{comments_first24h} over the posts of the source blog.}
#'     \item{\code{src_comments_diff_mean}, \code{src_comments_diff_sd},
#'       \code{src_comments_diff_min}, \code{src_comments_diff_max},
#'       \code{src_comments_diff_median}}{
#'       Columns 21-25: mean, standard deviation, minimum, maximum and
#'       median of \code{comments_diff} over the posts of the source blog.}
#'     \item{\code{src_links_total_mean}, \code{src_links_total_sd},
#'       \code{src_links_total_min}, \code{src_links_total_max},
#'       \code{src_links_total_median}}{
#'       Columns 26-30: mean, standard deviation, minimum, maximum and
#'       median of \code{links_total} over the posts of the source blog.}
#'     \item{\code{src_links_last24h_mean}, \code{src_links_last24h_sd},
#'       \code{src_links_last24h_min}, \code{src_links_last24h_max},
#'       \code{src_links_last24h_median}}{
#'       Columns 31-35: mean, standard deviation, minimum, maximum and
#'       median of \code{links_last24h} over the posts of the source blog.}
#'     \item{\code{src_links_24h_to_48h_mean}, \code{src_links_24h_to_48h_sd},
#'       \code{src_links_24h_to_48h_min}, \code{src_links_24h_to_48h_max},
#'       \code{src_links_24h_to_48h_median}}{
#'       Columns 36-40: mean, standard deviation, minimum, maximum and
#'       median of \code{links_24h_to_48h} over the posts of the source blog.}
#'     \item{\code{src_links_first24h_mean}, \code{src_links_first24h_sd},
#'       \code{src_links_first24h_min}, \code{src_links_first24h_max},
#'       \code{src_links_first24h_median}}{
#'       Columns 41-45: mean, standard deviation, minimum, maximum and
#'       median of \code{links_first24h} over the posts of the source blog.}
#'     \item{\code{src_links_diff_mean}, \code{src_links_diff_sd},
#'       \code{src_links_diff_min}, \code{src_links_diff_max},
#'       \code{src_links_diff_median}}{
#'       Columns 46-50: mean, standard deviation, minimum, maximum and
#'       median of \code{links_diff} over the posts of the source blog.}
#'     \item{\code{comments_total}}{Column 51: number of comments the post
#'       received before the basetime.}
#'     \item{\code{comments_last24h}}{Column 52: comments received in the 24
#'       hours just before the basetime.}
#'     \item{\code{comments_24h_to_48h}}{Column 53: comments received between 48
#'       and 24 hours before the basetime.}
#'     \item{\code{comments_first24h}}{Column 54: comments received in the first
#'       24 hours after publication, counting only those before the basetime.}
#'     \item{\code{comments_diff}}{Column 55: \code{comments_last24h} minus
#'       \code{comments_24h_to_48h}; this identity holds exactly in every
#'       row.}
#'     \item{\code{links_total}, \code{links_last24h}, \code{links_24h_to_48h},
#'       \code{links_first24h}, \code{links_diff}}{Columns 56-60: the same five
#'       quantities as columns 51-55, but counting links (trackbacks) to the
#'       post instead of comments; \code{links_diff} equals
#'       \code{links_last24h} minus \code{links_24h_to_48h}.}
#'     \item{\code{hours_since_publication}}{Column 61: hours from publication
#'       to the basetime, a whole number from 0 to 72.}
#'     \item{\code{post_length}}{Column 62: length of the post's text (0 in
#'       12,750 rows).}
#'     \item{\code{word_001}, \code{word_002}, \code{word_003}, \code{word_004},
#'       \code{word_005}, \code{word_006}, \code{word_007}, \code{word_008},
#'       \code{word_009}, \code{word_010}, \code{word_011}, \code{word_012},
#'       \code{word_013}, \code{word_014}, \code{word_015}, \code{word_016},
#'       \code{word_017}, \code{word_018}, \code{word_019}, \code{word_020},
#'       \code{word_021}, \code{word_022}, \code{word_023}, \code{word_024},
#'       \code{word_025}, \code{word_026}, \code{word_027}, \code{word_028},
#'       \code{word_029}, \code{word_030}, \code{word_031}, \code{word_032},
#'       \code{word_033}, \code{word_034}, \code{word_035}, \code{word_036},
#'       \code{word_037}, \code{word_038}, \code{word_039}, \code{word_040},
#'       \code{word_041}, \code{word_042}, \code{word_043}, \code{word_044},
#'       \code{word_045}, \code{word_046}, \code{word_047}, \code{word_048},
#'       \code{word_049}, \code{word_050}, \code{word_051}, \code{word_052},
#'       \code{word_053}, \code{word_054}, \code{word_055}, \code{word_056},
#'       \code{word_057}, \code{word_058}, \code{word_059}, \code{word_060},
#'       \code{word_061}, \code{word_062}, \code{word_063}, \code{word_064},
#'       \code{word_065}, \code{word_066}, \code{word_067}, \code{word_068},
#'       \code{word_069}, \code{word_070}, \code{word_071}, \code{word_072},
#'       \code{word_073}, \code{word_074}, \code{word_075}, \code{word_076},
#'       \code{word_077}, \code{word_078}, \code{word_079}, \code{word_080},
#'       \code{word_081}, \code{word_082}, \code{word_083}, \code{word_084},
#'       \code{word_085}, \code{word_086}, \code{word_087}, \code{word_088},
#'       \code{word_089}, \code{word_090}, \code{word_091}, \code{word_092},
#'       \code{word_093}, \code{word_094}, \code{word_095}, \code{word_096},
#'       \code{word_097}, \code{word_098}, \code{word_099}, \code{word_100},
#'       \code{word_101}, \code{word_102}, \code{word_103}, \code{word_104},
#'       \code{word_105}, \code{word_106}, \code{word_107}, \code{word_108},
#'       \code{word_109}, \code{word_110}, \code{word_111}, \code{word_112},
#'       \code{word_113}, \code{word_114}, \code{word_115}, \code{word_116},
#'       \code{word_117}, \code{word_118}, \code{word_119}, \code{word_120},
#'       \code{word_121}, \code{word_122}, \code{word_123}, \code{word_124},
#'       \code{word_125}, \code{word_126}, \code{word_127}, \code{word_128},
#'       \code{word_129}, \code{word_130}, \code{word_131}, \code{word_132},
#'       \code{word_133}, \code{word_134}, \code{word_135}, \code{word_136},
#'       \code{word_137}, \code{word_138}, \code{word_139}, \code{word_140},
#'       \code{word_141}, \code{word_142}, \code{word_143}, \code{word_144},
#'       \code{word_145}, \code{word_146}, \code{word_147}, \code{word_148},
#'       \code{word_149}, \code{word_150}, \code{word_151}, \code{word_152},
#'       \code{word_153}, \code{word_154}, \code{word_155}, \code{word_156},
#'       \code{word_157}, \code{word_158}, \code{word_159}, \code{word_160},
#'       \code{word_161}, \code{word_162}, \code{word_163}, \code{word_164},
#'       \code{word_165}, \code{word_166}, \code{word_167}, \code{word_168},
#'       \code{word_169}, \code{word_170}, \code{word_171}, \code{word_172},
#'       \code{word_173}, \code{word_174}, \code{word_175}, \code{word_176},
#'       \code{word_177}, \code{word_178}, \code{word_179}, \code{word_180},
#'       \code{word_181}, \code{word_182}, \code{word_183}, \code{word_184},
#'       \code{word_185}, \code{word_186}, \code{word_187}, \code{word_188},
#'       \code{word_189}, \code{word_190}, \code{word_191}, \code{word_192},
#'       \code{word_193}, \code{word_194}, \code{word_195}, \code{word_196},
#'       \code{word_197}, \code{word_198}, \code{word_199}, \code{word_200}}{
#'       Columns 63-262: indicators (0 or 1) of whether each of 200 frequent
#'       words occurs in the post. The source does not say which words
#'       these are.}
#'     \item{\code{basetime_mon}, \code{basetime_tue}, \code{basetime_wed},
#'       \code{basetime_thu}, \code{basetime_fri}, \code{basetime_sat},
#'       \code{basetime_sun}}{Columns 263-269: one-hot coding of the day of the
#'       week of the basetime; exactly one of the seven is 1 in each row.}
#'     \item{\code{published_mon}, \code{published_tue}, \code{published_wed},
#'       \code{published_thu}, \code{published_fri}, \code{published_sat},
#'       \code{published_sun}}{Columns 270-276: one-hot coding of the day of
#'       the week on which the post was published; exactly one is 1 in each
#'       row.}
#'     \item{\code{parents}}{Column 277: number of parent pages, that is, blog
#'       posts that the post links to.}
#'     \item{\code{parent_comments_min}, \code{parent_comments_max},
#'       \code{parent_comments_mean}}{Columns 278-280: smallest, largest and
#'       average number of comments received by the parent pages (0 when there
#'       are no parents). See Details about \code{parent_comments_min}.}
#'     \item{\code{comments_next24h}}{Column 281, the response: number of
#'       comments the post received in the 24 hours after the basetime.}
#'   }
#'
#' @details
#' The response \code{comments_next24h} is a non-negative whole number and is
#' very heavily skewed, which is what makes it a useful heavy-tailed test case.
#' Computed from this data set: it ranges from 0 to 1424, with mean 6.7647
#' (sum 354,451 over 52,397 rows), standard deviation 37.71, median 0, upper
#' quartile 1, 90th percentile 8 and 99th percentile 153. Exactly 33,559 rows
#' (64.0 percent) have no comments in the next 24 hours.
#'
#' Xie et al. report n = 52,396 observations for this data set. The file has
#' 52,397 data lines and no header; the difference of one is what you get if
#' the first line is wrongly treated as column names. All 52,397 rows are
#' kept here.
#'
#' Some features carry no information in this file: \code{parent_comments_min},
#' \code{src_comments_24h_to_48h_min}, \code{src_links_last24h_min} and
#' \code{src_links_24h_to_48h_min} are 0 in every row, so they have zero
#' variance and should be removed (or handled) before standardising the design
#' matrix. \code{parent_comments_min} is 0 even for posts with a single parent
#' that has comments, so it does not seem to be computed as its name suggests.
#' The file also contains 3,194 rows that exactly repeat an earlier row.
#'
#' The BlogFeedback archive also has 60 daily test files (February and March
#' 2012). They are not included in this package.
#'
#' The object was built by \code{data-raw/blog.R} in the package's source
#' repository, which checks the sha256 of the UCI file before converting it.
#'
#' @source UCI Machine Learning Repository, BlogFeedback (dataset id 304),
#'   file \code{blogData_train.csv} from the archive \code{BlogFeedback.zip},
#'   \url{https://archive.ics.uci.edu/dataset/304/blogfeedback}. Licence: as
#'   distributed by UCI. Column names were added for this package; the values
#'   are unchanged.
#'
#' @references
#' Buza, K. (2014). Feedback Prediction for Blogs. In \emph{Data Analysis,
#' Machine Learning and Knowledge Discovery}, Springer, 145--152.
#'
#' Xie, H., Pietrosanu, M., Liu, Y., Tu, W., Jiang, B. and Kong, L.
#' Differentially private regularized stochastic convex optimization with
#' heavy-tailed data. \emph{Statistica Sinica}.
#' \doi{10.5705/ss.202022.0282}
#'
#' @docType data
#' @keywords datasets
#' @examples
#' dim(blog)
#' summary(blog$comments_next24h)
#' mean(blog$comments_next24h == 0)
#'
#' # design matrix and response, dropping the constant columns
#' x <- as.matrix(blog[, setdiff(names(blog), "comments_next24h")])
#' x <- x[, apply(x, 2, stats::sd) > 0]
#' y <- blog$comments_next24h
#' dim(x)
"blog"
