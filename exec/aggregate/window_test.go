package aggregate

import (
	"context"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// windowRows is the table w(id int, g int, x int, f float8, s text) the
// window tests share; windowGolden holds PostgreSQL 15's answers (ordered
// by id) to the queries spelled out next to each case in
// TestWindowLikePostgres.
var windowRows = [][]any{
	{0, 3, 5, 4.71, "a"},
	{1, 2, 3, 4.5, "a"},
	{2, 2, 3, 0.51, "b"},
	{3, 1, 6, 4.58, "d"},
	{4, 1, 1, 3.09, "b"},
	{5, 1, nil, 1.05, "b"},
	{6, 1, 4, 0.99, "b"},
	{7, 1, 3, 4.47, "c"},
	{8, 1, 2, 1.32, "c"},
	{9, 2, 9, nil, "c"},
	{10, 1, 4, 1.58, "d"},
	{11, 2, 0, 4.7, "c"},
	{12, 2, nil, 1.83, "a"},
	{13, 2, nil, 4.78, "b"},
	{14, 1, 7, 1.77, "c"},
	{15, 2, nil, 3.99, "c"},
	{16, 1, 1, 2.56, "c"},
	{17, 1, 8, nil, "c"},
	{18, 2, 1, 3.61, "c"},
	{19, 2, 0, nil, "d"},
	{20, 1, 9, 1.25, "d"},
	{21, 1, nil, 0.16, "d"},
	{22, 2, 2, 2.82, "b"},
	{23, 3, 6, 2.17, "b"},
	{24, 1, 4, 4.61, "b"},
	{25, 3, 7, 1.59, "c"},
	{26, 2, 2, 4.11, "b"},
	{27, 3, 5, 2.46, "c"},
	{28, 1, 5, 3.32, "c"},
	{29, 2, 4, 1.32, "c"},
	{30, 2, 9, 2.37, "c"},
	{31, 2, 7, 2.5, "c"},
	{32, 2, 5, 4.14, "c"},
	{33, 1, 7, 4.78, "b"},
	{34, 3, 3, 4.69, "d"},
	{35, 2, 6, 3.9, "d"},
	{36, 2, 4, 0.14, "b"},
	{37, 3, 2, 3.43, "a"},
	{38, 2, 2, nil, "b"},
	{39, 1, 2, 2.74, "d"},
}

var windowGolden = map[string]string{
	"A": `0|3|2|3|6|2|5|3|10|3|3.3333333333333333|2|d|a,d,a
1|7|2|2|4|0|3|0|10|7|1.4285714285714286|0|d|c,d,c,b,b,b,a
2|8|2|3|4|0|3|0|13|8|1.6250000000000000|0|d|c,d,c,b,b,b,a,b
3|10|2|5|7|1|6|1|32|10|3.2000000000000000|1|d|b,c,c,d,c,b,d,b,c,d
4|1|1||2|1|1||1|1|1.00000000000000000000|1|b|b
5|15|3|9|-1|1||1|63|15|4.5000000000000000|1|d|b,c,c,d,c,b,d,b,c,d,c,b,c,d,b
6|6|1|3|4|1|4|1|13|6|2.1666666666666667|1|d|b,c,c,d,c,b
7|5|1|2|4|1|3|1|9|5|1.8000000000000000|1|d|b,c,c,d,c
8|3|1|1|3|1|2|1|4|3|1.3333333333333333|1|c|b,c,c
9|14|3|7||0|9|0|48|14|3.4285714285714286|0|d|c,d,c,b,b,b,a,b,c,b,c,d,c,c
10|7|2|4|5|1|4|1|17|7|2.4285714285714286|1|d|b,c,c,d,c,b,d
11|1|1||1|0|0||0|1|0.00000000000000000000|0|c|c
12|16|3|9||0||0|57|16|3.8000000000000000|0|d|c,d,c,b,b,b,a,b,c,b,c,d,c,c,c,a
13|17|3||-1|0||0|57|17|3.8000000000000000|0|d|c,d,c,b,b,b,a,b,c,b,c,d,c,c,c,a,b
14|11|2|6|8|1|7|1|39|11|3.5454545454545455|1|d|b,c,c,d,c,b,d,b,c,d,c
15|18|3||-1|0||0|57|18|3.8000000000000000|0|d|c,d,c,b,b,b,a,b,c,b,c,d,c,c,c,a,b,c
16|2|1|1|2|1|1|1|2|2|1.00000000000000000000|1|c|b,c
17|13|3|7||1|8|1|54|13|4.1538461538461538|1|d|b,c,c,d,c,b,d,b,c,d,c,b,c
18|3|1|0|2|0|1|0|1|3|0.33333333333333333333|0|d|c,d,c
19|2|1|0|2|0|0|0|0|2|0.00000000000000000000|0|d|c,d
20|14|3|8||1|9|1|63|14|4.5000000000000000|1|d|b,c,c,d,c,b,d,b,c,d,c,b,c,d
21|16|3||-1|1||1|63|16|4.5000000000000000|1|d|b,c,c,d,c,b,d,b,c,d,c,b,c,d,b,d
22|4|1|1|2|0|2|0|3|4|0.75000000000000000000|0|d|c,d,c,b
23|5|3|5|-1|2|6|3|21|5|4.2000000000000000|2|d|a,d,a,c,b
24|8|2|4|6|1|4|1|21|8|2.6250000000000000|1|d|b,c,c,d,c,b,d,b
25|6|3|6|-1|2|7|3|28|6|4.6666666666666667|2|d|a,d,a,c,b,c
26|5|1|2|3|0|2|0|5|5|1.00000000000000000000|0|d|c,d,c,b,b
27|4|2|5|7|2|5|3|15|4|3.7500000000000000|2|d|a,d,a,c
28|9|2|4|7|1|5|1|26|9|2.8888888888888889|1|d|b,c,c,d,c,b,d,b,c
29|9|2|3|5|0|4|0|17|9|1.8888888888888889|0|d|c,d,c,b,b,b,a,b,c
30|15|3|9||0|9|0|57|15|3.8000000000000000|0|d|c,d,c,b,b,b,a,b,c,b,c,d,c,c,c
31|13|3|6|9|0|7|0|39|13|3.0000000000000000|0|d|c,d,c,b,b,b,a,b,c,b,c,d,c
32|11|2|4|7|0|5|0|26|11|2.3636363636363636|0|d|c,d,c,b,b,b,a,b,c,b,c
33|12|3|7|9|1|7|1|46|12|3.8333333333333333|1|d|b,c,c,d,c,b,d,b,c,d,c,b
34|2|1|2|5|2|3|3|5|2|2.5000000000000000|2|d|a,d
35|12|2|5|9|0|6|0|32|12|2.6666666666666667|0|d|c,d,c,b,b,b,a,b,c,b,c,d
36|10|2|4|6|0|4|0|21|10|2.1000000000000000|0|d|c,d,c,b,b,b,a,b,c,b
37|1|1||5|2|2||2|1|2.0000000000000000|2|a|a
38|6|1|2|3|0|2|0|7|6|1.1666666666666667|0|d|c,d,c,b,b,b
39|4|1|2|4|1|2|1|6|4|1.5000000000000000|1|d|b,c,c,d`,
	"B": `0|3|3|0.4|0.6666666666666666|15|4|5
1|7|4|0.35294117647058826|0.4444444444444444|13|8|3
2|7|4|0.35294117647058826|0.4444444444444444|13|8|3
3|10|6|0.6|0.625|32|10|6
4|1|1|0|0.125|2|2|1
5|15|10|0.9333333333333333|1|63|14|
6|6|4|0.3333333333333333|0.5|21|8|4
7|5|3|0.26666666666666666|0.3125|9|5|3
8|3|2|0.13333333333333333|0.25|6|4|2
9|14|9|0.7647058823529411|0.8333333333333334|57|15|9
10|6|4|0.3333333333333333|0.5|21|8|4
11|1|1|0|0.1111111111111111|0|2|0
12|16|10|0.8823529411764706|1|57|15|
13|16|10|0.8823529411764706|1|57|15|
14|11|7|0.6666666666666666|0.75|46|12|7
15|16|10|0.8823529411764706|1|57|15|
16|1|1|0|0.125|2|2|1
17|13|8|0.8|0.8125|54|13|8
18|3|2|0.11764705882352941|0.16666666666666666|1|3|1
19|1|1|0|0.1111111111111111|0|2|0
20|14|9|0.8666666666666667|0.875|63|14|9
21|15|10|0.9333333333333333|1|63|14|
22|4|3|0.17647058823529413|0.3333333333333333|7|6|2
23|5|4|0.8|0.8333333333333334|21|5|6
24|6|4|0.3333333333333333|0.5|21|8|4
25|6|5|1|1|28|6|7
26|4|3|0.17647058823529413|0.3333333333333333|7|6|2
27|3|3|0.4|0.6666666666666666|15|4|5
28|9|5|0.5333333333333333|0.5625|26|9|5
29|9|5|0.47058823529411764|0.5555555555555556|21|10|4
30|14|9|0.7647058823529411|0.8333333333333334|57|15|9
31|13|8|0.7058823529411765|0.7222222222222222|39|13|7
32|11|6|0.5882352941176471|0.6111111111111112|26|11|5
33|11|7|0.6666666666666666|0.75|46|12|7
34|2|2|0.2|0.3333333333333333|5|2|3
35|12|7|0.6470588235294118|0.6666666666666666|32|12|6
36|9|5|0.47058823529411764|0.5555555555555556|21|10|4
37|1|1|0|0.16666666666666666|2|1|2
38|4|3|0.17647058823529413|0.3333333333333333|7|6|2
39|3|2|0.13333333333333333|0.25|6|4|2`,
	"C": `0|18|4|4|c,b,a,c|2.1574999999999998
1|10|2|4|b,d,a,b|2.5833333333333335
2|11|2|4|d,a,b,c|3.0549999999999997
3|22|5|4|c,c,d,b|3.5524999999999998
4|2|0|4|c,d,b,c|3.4499999999999997
5|18|9|2|d,c,b,a|1.625
6|14|3|4|c,d,b,d|2.9325
7|12|3|4|a,b,c,d|3.5425000000000004
8|6|1|4|c,c,c,b|2.5775
9|33|7|4|b,c,c,d|3.015
10|15|3|4|d,b,d,b|2.9675000000000002
11|0|0|2|c,d|4.7
12|9|9|1|c,b,a,b|2.5075000000000003
13|||0|b,a,b,c|2.9125
14|26|6|4|b,d,c,c|2.3575
15|||0|a,b,c,d|2.6900000000000004
16|3|0|4|d,b,c,c|3.0866666666666664
17|31|7|4|c,b,c,c|3.64
18|5|1|4|b,c,c,c|2.645
19|1|0|3|c,d,b|3.895
20|35|8|4|c,c,d,c|1.81
21|||0|b,c,d|2.9766666666666666
22|7|1|4|c,c,b,b|2.965
23|23|5|4|c,d,b,d|3.6975
24|16|4|4|b,d,b,c|2.125
25|27|6|4|d,c,c,c|2.44
26|8|2|4|c,b,b,a|2.92
27|19|4|4|b,a,c,c|2.6574999999999998
28|20|5|4|a,c,c,c|3.6574999999999998
29|16|4|4|d,b,c,b|1.9125
30|27|9|3|c,d,c,b|1.5566666666666666
31|28|7|4|c,c,c,b|2.66
32|21|5|4|c,c,c,d|3.6249999999999996
33|29|7|4|c,c,b,c|2.956666666666667
34|13|3|4|b,c,d,b|2.665
35|25|6|4|d,b,d,c|3.105
36|17|4|4|b,c,b,a|2.6950000000000003
37|8|2|4|b,b,a,b|3.453333333333333
38|8|2|4|b,a,b,d|3.426666666666667
39|9|2|4|a,b,d,a|3.5566666666666666`,
	"D": `0|28|6|2|4.71
1|26|11|0|4.7
2|26|11|0|4.7
3|48|9|3|4.78
4|9|5|1|4.47
5||2||1.05
6|32|10|1|4.61
7|26|9|1|4.61
8|21|8|1|4.61
9|31|4|6|3.9
10|32|10|1|4.61
11|7|6|0|4.7
12||3||4.78
13||3||4.78
14|54|9|4|4.78
15||3||4.78
16|9|5|1|4.47
17|42|6|5|4.78
18|13|8|0|4.7
19|7|6|0|4.7
20|37|5|6|4.78
21||2||1.05
22|21|10|0|4.7
23|26|5|3|4.71
24|32|10|1|4.61
25|23|4|5|4.71
26|21|10|0|4.7
27|28|6|2|4.71
28|44|10|2|4.78
29|32|10|1|4.5
30|31|4|6|3.9
31|44|7|4|4.14
32|38|10|2|4.5
33|54|9|4|4.78
34|15|4|2|4.71
35|32|7|3|4.5
36|32|10|1|4.5
37|5|2|2|4.69
38|21|10|0|4.7
39|21|8|1|4.61`,
	"E": `0|16|6|3
1|14|4|4
2|14|4|4
3|20|7|3
4|6|2|4
5|||2
6|17|5|4
7|15|4|4
8|7|3|3
9|18|9|2
10|17|5|4
11|1|1|3
12|||3
13|||3
14|22|8|3
15|||3
16|6|2|4
17|17|9|2
18|7|2|4
19|1|1|3
20|9|9|1
21|||2
22|12|3|5
23|13|7|2
24|17|5|4
25|7|7|1
26|12|3|5
27|16|6|3
28|11|6|2
29|13|5|3
30|18|9|2
31|7|7|1
32|11|6|2
33|22|8|3
34|3|3|1
35|13|7|2
36|13|5|3
37|5|3|2
38|12|3|5
39|7|3|3`,
	"F": `0|28|6|4.6666666666666667|f
1|57|18|3.8000000000000000|f
2|57|18|3.8000000000000000|f
3|63|16|4.5000000000000000|f
4|63|16|4.5000000000000000|f
5|63|16|4.5000000000000000|f
6|63|16|4.5000000000000000|f
7|63|16|4.5000000000000000|f
8|63|16|4.5000000000000000|f
9|57|18|3.8000000000000000|f
10|63|16|4.5000000000000000|f
11|57|18|3.8000000000000000|f
12|57|18|3.8000000000000000|f
13|57|18|3.8000000000000000|f
14|63|16|4.5000000000000000|f
15|57|18|3.8000000000000000|f
16|63|16|4.5000000000000000|f
17|63|16|4.5000000000000000|f
18|57|18|3.8000000000000000|f
19|57|18|3.8000000000000000|f
20|63|16|4.5000000000000000|f
21|63|16|4.5000000000000000|f
22|57|18|3.8000000000000000|f
23|28|6|4.6666666666666667|f
24|63|16|4.5000000000000000|f
25|28|6|4.6666666666666667|f
26|57|18|3.8000000000000000|f
27|28|6|4.6666666666666667|f
28|63|16|4.5000000000000000|f
29|57|18|3.8000000000000000|f
30|57|18|3.8000000000000000|f
31|57|18|3.8000000000000000|f
32|57|18|3.8000000000000000|f
33|63|16|4.5000000000000000|f
34|28|6|4.6666666666666667|f
35|57|18|3.8000000000000000|f
36|57|18|3.8000000000000000|f
37|28|6|4.6666666666666667|f
38|57|18|3.8000000000000000|f
39|63|16|4.5000000000000000|f`,
	"G": `0|58|12
1|44|15
2|44|15
3|66|11
4|15|11
5|27|8
6|52|13
7|44|15
8|27|13
9|35|9
10|52|13
11|3|5
12|27|8
13|27|8
14|54|8
15|27|8
16|15|11
17|63|8
18|15|11
19|3|5
20|35|9
21|27|8
22|27|13
23|66|11
24|52|13
25|54|8
26|27|13
27|58|12
28|58|12
29|52|13
30|35|9
31|54|8
32|58|12
33|54|8
34|44|15
35|66|11
36|52|13
37|27|13
38|27|13
39|27|13`,
	"H": `0|7|3.4666666666666667|1.2076112785163942
1||8.4571428571428571|1.4662735836883316
2||8.4571428571428571|1.4662735836883316
3||6.7307692307692308|1.4853141830004255
4||6.7307692307692308|1.4853141830004255
5||6.7307692307692308|1.4853141830004255
6||6.7307692307692308|1.4853141830004255
7||6.7307692307692308|1.4853141830004255
8||6.7307692307692308|1.4853141830004255
9||8.4571428571428571|1.4662735836883316
10||6.7307692307692308|1.4853141830004255
11||8.4571428571428571|1.4662735836883316
12||8.4571428571428571|1.4662735836883316
13||8.4571428571428571|1.4662735836883316
14||6.7307692307692308|1.4853141830004255
15||8.4571428571428571|1.4662735836883316
16||6.7307692307692308|1.4853141830004255
17||6.7307692307692308|1.4853141830004255
18||8.4571428571428571|1.4662735836883316
19||8.4571428571428571|1.4662735836883316
20||6.7307692307692308|1.4853141830004255
21||6.7307692307692308|1.4853141830004255
22||8.4571428571428571|1.4662735836883316
23|7|3.4666666666666667|1.2076112785163942
24||6.7307692307692308|1.4853141830004255
25|7|3.4666666666666667|1.2076112785163942
26||8.4571428571428571|1.4662735836883316
27|7|3.4666666666666667|1.2076112785163942
28||6.7307692307692308|1.4853141830004255
29||8.4571428571428571|1.4662735836883316
30||8.4571428571428571|1.4662735836883316
31||8.4571428571428571|1.4662735836883316
32||8.4571428571428571|1.4662735836883316
33||6.7307692307692308|1.4853141830004255
34|7|3.4666666666666667|1.2076112785163942
35||8.4571428571428571|1.4662735836883316
36||8.4571428571428571|1.4662735836883316
37|7|3.4666666666666667|1.2076112785163942
38||8.4571428571428571|1.4662735836883316
39||6.7307692307692308|1.4853141830004255`,
	"I": `0|41.82|9
1|50.07|11
2|1.8|4
3|50.07|11
4|15.4|5
5|5.930000000000001|5
6|6.44|6
7|54.06|12
8|10.870000000000001|8
9||4
10|10.66|7
11|41.82|9
12|8.94|5
13|41.82|9
14|11.58|7
15|24.22|6
16|17.62|7
17||4
18|18.25|5
19||4
20|9.100000000000001|7
21|0.81|3
22|21.86|8
23|15.660000000000002|7
24|50.07|11
25|10.66|7
26|34.3|8
27|17.62|7
28|16.27|5
29|10.870000000000001|8
30|17.62|7
31|17.62|7
32|34.3|8
33|41.82|9
34|41.82|9
35|23.18|6
36|0.81|3
37|17.349999999999998|5
38||4
39|18.54|7`,
	"J": `0|11|1|1.7960512242138307
1|6|1|2.8213560569343246
2|15|2|2.8213560569343246
3|6|2|1.053589103967956
4|6|3|1.7721267825224396
5|4|3|1.1954915307102763
6|7|3|1.992084335564135
7|7|3|1.9210153565237316
8|7|3|1.7484373976020224
9|12|3|2.9627774131716347
10|11|3|0.22590558499809907
11|9|2|2.0293964620053915
12||2|1.68056538105484
13||2|1.5270996474799323
14|11|3|0.5197114584074513
15||3|0.5968528573554228
16|15|3|0.5586143571373726
17|17|3|0.9263098833543773
18||3|0.268700576850888
19||3|0.5586143571373726
20|17|3|0.7707463914933367
21|13|3|2.3194898864477365
22||3|0.9121677477306469
23|18|2|1.6594376557536994
24|9|3|2.289548718270335
25|18|3|0.44298231717906444
26|4|3|1.3963165830140385
27|15|3|1.5989475705392384
28|16|3|0.7983942217559775
29|13|3|1.4091486791676742
30|20|3|0.6470188044665574
31|21|3|0.9865258908580821
32|18|3|0.8857388629462597
33|12|3|1.0511580915035252
34|8|2|1.1181383337196402
35|15|3|2.2433308568584645
36|10|3|2.6587214972614186
37|3|1|0.8909545442950504
38|4|2|
39|7|2|1.442497833620557`,
	"K": `0|20|5|5
1|12|3|3
2|13|3|3
3|25|6|6
4|5|1|1
5|||
6|16|4|4
7|14|3|4
8|8|2|2
9|27|9|9
10|16|4|4
11|2|0|1
12|||
13|0||
14|28|7|7
15|0||0
16|6|1|2
17|35|8|9
18|7|1|2
19|3|0|1
20|18|9|
21|1||0
22|8|2|2
23|26|6|7
24|17|4|4
25|29|7|7
26|8|2|2
27|21|5|5
28|22|5|6
29|18|4|5
30|9|9|
31|31|7|8
32|23|5|6
33|33|7|9
34|15|3|4
35|27|6|7
36|19|4|5
37|9|2|2
38|10|2|3
39|11|2|3`,
	"L": `0|21|5
1|21|13
2|21|13
3|46|14
4|6|6
5||2
6|26|11
7|21|10
8|9|7
9|57|18
10|26|11
11|1|6
12||3
13||3
14|54|15
15||3
16|6|6
17|63|16
18|7|9
19|1|6
20|63|16
21||2
22|13|11
23|28|6
24|26|11
25|28|6
26|13|11
27|21|5
28|32|12
29|26|14
30|57|18
31|39|16
32|32|15
33|54|15
34|5|2
35|39|16
36|26|14
37|5|2
38|13|11
39|9|7`,
}

// windowInput is w plus computed columns: 5 = -1, 6 = 2, 7 = 3, 8 = ',',
// 9 = x > 2, 10 = s <> 'a'.
func windowInput() exec.Operator {
	ts := []types.T{types.Int32T, types.Int32T, types.Int32T, types.Float64T, types.TextT}
	i4 := func(x int64) exec.Expr { return exec.NewConst(ints(types.Int32T, x)) }
	exprs := []exec.Expr{col(0, types.Int32T), col(1, types.Int32T), col(2, types.Int32T), col(3, types.Float64T), col(4, types.TextT),
		i4(-1), i4(2), i4(3), exec.NewConst(texts(",")),
		&exec.Cmp{Op: exec.GT, L: col(2, types.Int32T), R: i4(2)},
		&exec.Cmp{Op: exec.NE, L: col(4, types.TextT), R: exec.NewConst(texts("a"))}}
	return &exec.Project{Env: env, Input: newRowsOp(ts, windowRows, 7), Exprs: exprs}
}

func TestWindowLikePostgres(t *testing.T) {
	const id, g, x, f, s = 0, 1, 2, 3, 4
	const minus1, two, three, comma, xGt2, sNotA = 5, 6, 7, 8, 9, 10
	aggFunc := func(k AggKind, arg int, in types.T) WindowFunc {
		return WindowFunc{Kind: WinAgg, Agg: mkAgg(t, k, arg, in)}
	}
	withFrame := func(fr Frame, fs ...WindowFunc) []WindowFunc {
		for i := range fs {
			fs[i].Frame = fr
		}
		return fs
	}
	strAgg := WindowFunc{Kind: WinAgg, Agg: Agg{Kind: AggStringAgg, Arg: s, Arg2: comma, In: types.TextT, Out: types.TextT}}
	rows := func(a, b FrameBound) Frame { return Frame{Mode: FrameRows, Start: a, End: b} }
	rng := func(a, b FrameBound) Frame { return Frame{Mode: FrameRange, Start: a, End: b} }
	pre := func(n int64) FrameBound { return FrameBound{Kind: BoundPreceding, Offset: n} }
	fol := func(n int64) FrameBound { return FrameBound{Kind: BoundFollowing, Offset: n} }
	cur := FrameBound{Kind: BoundCurrentRow}
	unbP, unbF := FrameBound{Kind: BoundUnboundedPreceding}, FrameBound{Kind: BoundUnboundedFollowing}
	filtered := func(w WindowFunc, c int) WindowFunc { w.Agg.Filter = FilterColumn(c); return w }
	cases := []struct {
		name  string
		part  []int
		order []order.SortKey
		funcs []WindowFunc
	}{
		// A: window w as (partition by g order by x, id): row_number, ntile(3),
		// lag(x), lead(x,2,-1), first_value(x), last_value(x), nth_value(x,2),
		// sum(x), count(*), avg(x), min(x), max(s), string_agg(s, ',')
		{"A", []int{g}, []order.SortKey{{Col: x}, {Col: id}}, []WindowFunc{
			{Kind: WinRowNumber}, {Kind: WinNtile, Args: []int{three}}, {Kind: WinLag, Args: []int{x}},
			{Kind: WinLead, Args: []int{x, two, minus1}}, {Kind: WinFirstValue, Args: []int{x}}, {Kind: WinLastValue, Args: []int{x}},
			{Kind: WinNthValue, Args: []int{x, two}}, aggFunc(AggSum, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T),
			aggFunc(AggAvg, x, types.Int32T), aggFunc(AggMin, x, types.Int32T), aggFunc(AggMax, s, types.TextT), strAgg}},
		// B: (partition by g order by x): rank, dense_rank, percent_rank,
		// cume_dist, sum(x), count(x), last_value(x)
		{"B", []int{g}, []order.SortKey{{Col: x}}, []WindowFunc{
			{Kind: WinRank}, {Kind: WinDenseRank}, {Kind: WinPercentRank}, {Kind: WinCumeDist},
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggCount, x, types.Int32T), {Kind: WinLastValue, Args: []int{x}}}},
		// C: (order by x, id rows between 2 preceding and 1 following): sum(x),
		// min(x), count(x), string_agg(s, ','), avg(f)
		{"C", nil, []order.SortKey{{Col: x}, {Col: id}}, withFrame(rows(pre(2), fol(1)),
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggMin, x, types.Int32T), aggFunc(AggCount, x, types.Int32T), strAgg, aggFunc(AggAvg, f, types.Float64T))},
		// D: (partition by g order by x range between 3 preceding and 2
		// following): sum(x), count(*), first_value(x), max(f)
		{"D", []int{g}, []order.SortKey{{Col: x}}, withFrame(rng(pre(3), fol(2)),
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T), WindowFunc{Kind: WinFirstValue, Args: []int{x}}, aggFunc(AggMax, f, types.Float64T))},
		// E: (partition by g order by x desc nulls last range between 1
		// preceding and current row): sum(x), max(x), count(*)
		{"E", []int{g}, []order.SortKey{{Col: x, Desc: true}}, withFrame(rng(pre(1), cur),
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggMax, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T))},
		// F: (partition by g): sum(x), count(*), avg(x), bool_and(x > 2)
		{"F", []int{g}, nil, []WindowFunc{aggFunc(AggSum, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T), aggFunc(AggAvg, x, types.Int32T), aggFunc(AggBoolAnd, xGt2, types.BoolT)}},
		// G: (order by x groups between 1 preceding and 1 following): sum(x), count(*)
		{"G", nil, []order.SortKey{{Col: x}}, withFrame(Frame{Mode: FrameGroups, Start: pre(1), End: fol(1)},
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T))},
		// H: (partition by g order by x, id rows between unbounded preceding and
		// unbounded following): last_value(x), var_samp(x), stddev_pop(f)
		{"H", []int{g}, []order.SortKey{{Col: x}, {Col: id}}, withFrame(rows(unbP, unbF),
			WindowFunc{Kind: WinLastValue, Args: []int{x}}, aggFunc(AggVarSamp, x, types.Int32T), aggFunc(AggStddevPop, f, types.Float64T))},
		// I: (order by f range between 0.5 preceding and 0.5 following): sum(f), count(*)
		{"I", nil, []order.SortKey{{Col: f}}, withFrame(rng(FrameBound{Kind: BoundPreceding, OffsetF: 0.5}, FrameBound{Kind: BoundFollowing, OffsetF: 0.5}),
			aggFunc(AggSum, f, types.Float64T), aggFunc(AggCountStar, 0, types.Int32T))},
		// J: (partition by g order by id rows between 1 preceding and 1
		// following): sum(x) filter (where x > 2), count(*) filter (where s <>
		// 'a'), stddev(f)
		{"J", []int{g}, []order.SortKey{{Col: id}}, withFrame(rows(pre(1), fol(1)),
			filtered(aggFunc(AggSum, x, types.Int32T), xGt2), filtered(aggFunc(AggCountStar, 0, types.Int32T), sNotA), aggFunc(AggStddevSamp, f, types.Float64T))},
		// K: (order by x nulls first, id rows between current row and 3
		// following): sum(x), first_value(x), nth_value(x, 3)
		{"K", nil, []order.SortKey{{Col: x, NullsFirst: true}, {Col: id}}, withFrame(rows(cur, fol(3)),
			aggFunc(AggSum, x, types.Int32T), WindowFunc{Kind: WinFirstValue, Args: []int{x}}, WindowFunc{Kind: WinNthValue, Args: []int{x, three}})},
		// L: (partition by g order by x nulls first range between unbounded
		// preceding and 1 following): sum(x), count(*)
		{"L", []int{g}, []order.SortKey{{Col: x, NullsFirst: true}}, withFrame(rng(unbP, fol(1)),
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T))},
	}
	for _, c := range cases {
		in := windowInput()
		w := &Window{Env: env, Input: in, PartitionBy: c.part, OrderBy: c.order, Funcs: c.funcs}
		nin := len(in.Types())
		proj := []exec.Expr{col(id, types.Int32T)}
		wt := w.Types()
		for i := range c.funcs {
			proj = append(proj, col(nin+i, wt[nin+i]))
		}
		got := collect(t, &exec.Project{Env: env, Input: w, Exprs: proj})
		for i, r := range got { // psql -A prints NULL as nothing
			fs := strings.Split(r, "|")
			for k := range fs {
				if fs[k] == "NULL" {
					fs[k] = ""
				}
			}
			got[i] = strings.Join(fs, "|")
		}
		sameRows(t, c.name, got, strings.Split(windowGolden[c.name], "\n"))
	}
}

func TestWindowErrorsAndEdges(t *testing.T) {
	// empty input
	w := &Window{Env: env, Input: newRowsOp(kst, nil, 3), OrderBy: []order.SortKey{{Col: 0}}, Funcs: []WindowFunc{{Kind: WinRowNumber}}}
	if got := collect(t, w); len(got) != 0 {
		t.Errorf("empty input: %v", got)
	}
	// ntile(0)
	in := &exec.Project{Env: env, Input: newRowsOp(kst, [][]any{{1, "a", 1}}, 3), Exprs: []exec.Expr{col(0, types.Int64T), exec.NewConst(ints(types.Int32T, 0))}}
	w = &Window{Env: env, Input: in, Funcs: []WindowFunc{{Kind: WinNtile, Args: []int{1}}}}
	if _, err := w.Next(context.Background()); pgerr.Code(err) != "22014" {
		t.Errorf("ntile(0): %v", err)
	}
	// DISTINCT is not a window aggregate
	a := mkAgg(t, AggCount, 0, types.Int64T)
	a.Distinct = true
	w = &Window{Env: env, Input: newRowsOp(kst, nil, 3), Funcs: []WindowFunc{{Kind: WinAgg, Agg: a}}}
	if _, err := w.Next(context.Background()); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Errorf("count(DISTINCT) OVER: %v", err)
	}
}

// TestWindowLargePartitions runs partitions larger than a batch and checks
// running sums and row numbers against a direct computation.
func TestWindowLargePartitions(t *testing.T) {
	const n = 3*vec.BatchSize + 17
	var rows [][]any
	for i := 0; i < n; i++ {
		rows = append(rows, []any{int64(i % 3), "x", int64(i)})
	}
	w := &Window{Env: env, Input: newRowsOp(kst, rows, 1000), PartitionBy: []int{0}, OrderBy: []order.SortKey{{Col: 2, Desc: true}},
		Funcs: []WindowFunc{{Kind: WinRowNumber}, {Kind: WinAgg, Agg: mkAgg(t, AggSum, 2, types.Int64T)},
			{Kind: WinAgg, Agg: mkAgg(t, AggSum, 2, types.Int64T), Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: BoundPreceding, Offset: 1}, End: FrameBound{Kind: BoundCurrentRow}}}}}
	got := collect(t, w)
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	var want []string
	for p := 0; p < 3; p++ {
		var sum, rn, prev int64 = 0, 0, -1
		for i := n - 1; i >= 0; i-- {
			if i%3 != p {
				continue
			}
			rn++
			sum += int64(i)
			two := int64(i)
			if prev >= 0 {
				two += prev
			}
			prev = int64(i)
			want = append(want, fmtRow(int64(p), "x", int64(i), rn, sum, two))
		}
	}
	sameRows(t, "large partitions", got, want)
}

func TestWindowRangeOverDates(t *testing.T) {
	day := func(s string) any {
		d, err := types.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	iv := func(s string) types.IntervalValue {
		v, err := types.ParseInterval(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	rows := [][]any{{day("2024-01-31")}, {day("2024-02-29")}, {day("2024-03-01")}, {day("2024-03-31")}, {nil}, {day("2024-02-01")}}
	fr := Frame{Mode: FrameRange, Start: FrameBound{Kind: BoundPreceding, OffsetIv: iv("1 mon")}, End: FrameBound{Kind: BoundFollowing, OffsetIv: iv("1 day")}}
	w := &Window{Env: env, Input: newRowsOp([]types.T{types.DateT}, rows, 4), OrderBy: []order.SortKey{{Col: 0}}, Funcs: []WindowFunc{
		{Kind: WinAgg, Agg: mkAgg(t, AggCountStar, 0, types.DateT), Frame: fr},
		{Kind: WinAgg, Agg: mkAgg(t, AggMin, 0, types.DateT), Frame: fr},
		{Kind: WinAgg, Agg: mkAgg(t, AggMax, 0, types.DateT), Frame: fr}}}
	// PostgreSQL 15: order by d range between '1 mon' preceding and '1 day' following
	want := []string{"2024-01-31|2|2024-01-31|2024-02-01", "2024-02-01|2|2024-01-31|2024-02-01", "2024-02-29|4|2024-01-31|2024-03-01",
		"2024-03-01|3|2024-02-01|2024-03-01", "2024-03-31|3|2024-02-29|2024-03-31", "NULL|1|NULL|NULL"}
	sameRows(t, "date range", collect(t, w), want)
}

// markChanges marks exactly the rows that nullableEqual finds unlike the
// row before, for each storage, with and without NULLs, keeping marks
// already set.
func TestWindowMarkChangesLikeRowCompare(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	mk := func(ty types.T, nulls bool) *vec.Vector {
		v := vec.New(ty, 0)
		for i := 0; i < 300; i++ {
			if nulls && rng.Intn(4) == 0 {
				v.AppendNull()
				continue
			}
			k := rng.Intn(3)
			switch ty.Storage() {
			case types.StoreInt:
				v.AppendInt(int64(k))
			case types.StoreFloat:
				v.AppendFloat([]float64{1, math.NaN(), 2}[k])
			case types.StoreBool:
				v.AppendBool(k == 0)
			default:
				if ty.DynNumeric() {
					v.AppendString([]string{"1.5", "1.50", "2"}[k])
				} else {
					v.AppendString([]string{"a", "b", ""}[k])
				}
			}
		}
		return v
	}
	for _, ty := range []types.T{types.Int64T, types.Float64T, types.BoolT, types.TextT, types.NumericAnyT} {
		for _, nulls := range []bool{false, true} {
			v := mk(ty, nulls)
			n := v.Len()
			pre := make([]bool, n)
			for i := range pre {
				pre[i] = rng.Intn(10) == 0
			}
			got := append([]bool(nil), pre...)
			markChanges(got, v, n)
			for i := 1; i < n; i++ {
				if want := pre[i] || !memory.NullableEqual(v, i, v, i-1); got[i] != want {
					t.Fatalf("%s nulls=%v row %d: got %v, want %v", ty, nulls, i, got[i], want)
				}
			}
		}
	}
}
