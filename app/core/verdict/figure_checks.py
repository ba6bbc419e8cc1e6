"""The rows of the check table that compare figures: by value, worked out, for which year.

A figure is compared as a value, not as a string: with its scale ("1,577 million", a table's
1,577 in millions), rounded ("about $5,466 million"), worked out from the passage's figures
where the sentence says it computes, defined by the question, given for the year the passage
gives it, and said in the sentence the claim rests on (``facts``, ``figures``, ``dated``).
``checks.CHECKS`` lists them in their place among the other rows.
"""

from __future__ import annotations

from app.core.verdict.rows import Check, Effect, Example

_E = Example
FIGURE_CHECKS: tuple[Check, ...] = (
    Check(
        "figure",
        "a figure (number, date, amount) the passage does not give, compared by value "
        '("1,577 million" is a table\'s 1,577 in millions; "about $5,466 million" rounds '
        '5,466,312 thousand; "one hour" is "60 minutes", ``measures``)',
        "the passage does not say 1898 (it has 1889)",
        Effect.FLAGS,
        "any",
        (
            _E(
                "The tower was completed in 1898 [1].",
                "The tower was completed in 1889.",
                "flagged",
            ),
            _E(
                "Only one of the three expeditions succeeded [1].",
                "Two of the three expeditions were successful.",
                "flagged",
            ),
            _E(  # a quantity in another unit: its value in one unit
                "Check-in closes one hour before departure [1].",
                "Check-in closes 60 minutes before departure.",
                "backed",
            ),
            _E(  # the same figure with another unit is another quantity
                "Bake the loaf for 5 minutes [1].",
                "Bake the loaf for 5 hours at 180 degrees.",
                "flagged",
            ),
            _E(  # "a single statement" gives the figure 1
                "One statement can insert several rows [1].",
                "Multiple rows can be inserted in a single statement.",
                "backed",
            ),
            _E(  # after a copula, "one" says what the subject is, not how many there were
                "Ada Byron was one English mathematician who wrote about the engine [1].",
                "Two English mathematicians, Ada Byron and Charles Babbage, wrote about the "
                "engine.",
                "backed",
            ),
            _E(
                "One English mathematician wrote about the engine [1].",
                "Two English mathematicians, Ada Byron and Charles Babbage, wrote about the "
                "engine.",
                "flagged",
            ),
            _E(
                "Total revenue was about $5,466 million [1].",
                "Total revenue (in thousands) was 5,466,312.",
                "backed",
            ),
            _E(
                "Revenue reached about $11.7 billion [1].",
                "Revenue grew to $11.69 billion.",
                "backed",
            ),
            _E(  # "$5,466 million" is a value, not a count of millions against "$1.3 million"
                "Total current liabilities were about $5,466 million [1].",
                "Total current liabilities were 5,466,312 (in thousands); money market funds "
                "held $1.3 million.",
                "backed",
            ),
            _E(  # a second figure rounding none of the sentence's (``restated``)
                "Las Vegas Strip Resorts earned $3,142,308 thousand, about $3.5 billion [1].",
                "Net revenues (in thousands): Las Vegas Strip Resorts 3,142,308; Regional "
                "Operations 1,294,630.",
                "flagged",
            ),
            _E(
                "The quarterly dividend in 2022 was $0.55 per share [1].",
                "During 2022, 2021 and 2020 the quarterly dividend was $0.55, $0.50 and $0.50 "
                "per share, respectively.",
                "backed",
            ),
        ),
    ),
    Check(
        "restated",
        "a figure that says another figure of the same sentence again, rounded "
        '("$3,142,308 thousand (about $3.1 billion)"): checked through the figure it rounds',
        "matches [1]",
        Effect.BACKS,
        "any",
        (
            _E(
                "Las Vegas Strip Resorts earned $3,142,308 thousand (about $3.1 billion) [1].",
                "Net revenues (in thousands): Las Vegas Strip Resorts 3,142,308; Regional "
                "Operations 1,294,630.",
                "backed",
            ),
        ),
    ),
    Check(
        "count_swapped",
        "a figure the sentence the claim rests on gives, but as the count of another thing "
        '("3 Han Tumens" where it says 4 Han Tumens and 3 Khitan ones)',
        "the passage gives 3, 4, but as the count of something else",
        Effect.FLAGS,
        "any",
        (
            _E(
                "There were 3 Han Tumens and 4 Khitan Tumens in the army [1].",
                "Many Han and Khitan officers defected and commanded the 3 Tumens of the "
                "vanguard. There were 4 Han Tumens and 3 Khitan Tumens in the army.",
                "flagged",
            ),
            _E(
                "There were 4 Han Tumens and 3 Khitan Tumens in the army [1].",
                "Many Han and Khitan officers defected and commanded the 3 Tumens of the "
                "vanguard. There were 4 Han Tumens and 3 Khitan Tumens in the army.",
                "backed",
            ),
        ),
    ),
    Check(
        "figure_order",
        "a sentence of a source, copied word for word or nearly, with its figures in each "
        'other\'s places ("27% had autonomic neuropathy, and 33% had cardiomyopathy" where '
        "the source gives 33% and 27%): every figure is the source's, each now says another "
        "thing's",
        "[1] gives 33 where this gives 27",
        Effect.FLAGS,
        "any",
        (
            _E(
                "At diagnosis, 83% of the patients had peripheral neuropathy, 27% had "
                "autonomic neuropathy, and 33% had cardiomyopathy [1].",
                "We followed 52 patients. At diagnosis, 83% of the patients had peripheral "
                "neuropathy, 33% had autonomic neuropathy, and 27% had cardiomyopathy.",
                "flagged",
            ),
            _E(  # the clauses moved with their figures: the same facts
                "At diagnosis, 83% of the patients had peripheral neuropathy, 27% had "
                "cardiomyopathy, and 33% had autonomic neuropathy [1].",
                "We followed 52 patients. At diagnosis, 83% of the patients had peripheral "
                "neuropathy, 33% had autonomic neuropathy, and 27% had cardiomyopathy.",
                "backed",
            ),
            _E(  # parallel clauses told in the other order, each figure with its year
                "Sales in the region rose 7% in 2020 and 5% in 2019, the company said [1].",
                "Sales in the region rose 5% in 2019 and 7% in 2020, the company said.",
                "backed",
            ),
        ),
    ),
    Check(
        "computed",
        "a figure the passage does not give, worked out from figures it does (a sum, a "
        "difference, a ratio, a percentage or its change; a figure written as a percentage "
        "only as a percentage, its change, or the sum or difference of two percentages), "
        "where the sentence says it computes",
        "the passage does not say 1832 (it has 1196, 636)",
        Effect.BACKS,
        "en",
        (
            _E(
                "Operating income of $1,196M plus depreciation and amortization of $636M gives "
                "$1,832M [1].",
                "Operating income was 1,196 and depreciation and amortization was 636.",
                "backed",
            ),
            _E(  # a percentage as one: 100 / 1,200, never the bare ratio 1,200 / 100 ("12%")
                "Costs of $100 million were about 8.3% of the total revenue of $1,200 million [1].",
                "Revenue was $1,200 million and costs were $100 million.",
                "backed",
            ),
        ),
    ),
    Check(
        "defined",
        'a name the question defines in a parenthesis ("… plus depreciation and amortization '
        '(unadjusted EBITDA)"), which the answer may use though no passage says it: the '
        "question's own word for what the passages say otherwise",
        "matches [1]",
        Effect.BACKS,
        "any",
        (
            _E(
                "Unadjusted EBITDA = operating income of $1,196M + depreciation and "
                "amortization of $636M = $1,832M [1].",
                "Operating income was 1,196 and depreciation and amortization was 636.",
                "backed",
                question="What is the operating income + depreciation and amortization "
                "(unadjusted EBITDA) in USD millions?",
            ),
        ),
    ),
    Check(
        "figure_year",
        "a figure the claim gives for a year, which the passage gives for another year while "
        "it gives that year another figure (the wrong year's figure, or the right figure "
        "moved to the wrong year)",
        "the passage gives 8.83 for 2016 and 11.69 for 2017",
        Effect.FLAGS,
        "any",
        (
            _E(
                "Netflix's 2017 revenue was $8.83 billion [1].",
                "Netflix's revenue grew to $11.69 billion in 2017, up from $8.83 billion in 2016.",
                "flagged",
            ),
            _E(
                "Netflix's revenue was $11.69 billion in 2016 [1].",
                "Netflix's revenue grew to $11.69 billion in 2017, up from $8.83 billion in 2016.",
                "flagged",
            ),
            _E(
                "Netflix's revenue rose to $11.69 billion in 2017 from $8.83 billion in 2016 [1].",
                "Netflix's revenue grew to $11.69 billion in 2017, up from $8.83 billion in 2016.",
                "backed",
            ),
            _E(  # a verb between a figure and a year: the year is not the figure's
                "Netflix's 2017 revenue of $11.69 billion was higher than its 2016 revenue [1].",
                "Netflix's revenue grew to $11.69 billion in 2017, up from $8.83 billion in 2016.",
                "backed",
            ),
            _E(  # a year taken by the figure before it is not given to the next
                "Netflix's revenue rose to $11.69 billion in 2017 from $8.83 billion a year "
                "earlier [1].",
                "Netflix's revenue grew to $11.69 billion in 2017, up from $8.83 billion in 2016.",
                "backed",
            ),
            _E(  # "respectively": the years listed apart from their figures, in order
                "Revenue was $11.69 billion in 2017 [1].",
                "Revenue in 2017 and 2016 was $11.69 billion and $8.83 billion, respectively.",
                "backed",
            ),
            _E(  # the second year's figure for the first; "Q2" names a quarter, no figure
                "Northwind's quarterly cash dividend in Q2 2022 was $0.50 per share [1].",
                "Northwind's common stock is listed on the New York Stock Exchange. During "
                "2022, 2021 and 2020, the quarterly cash dividend was $0.55, $0.50 and $0.50 "
                "per share, respectively.",
                "flagged",
            ),
            _E(
                "Northwind's quarterly cash dividend in Q2 2022 was $0.55 per share [1].",
                "Northwind's common stock is listed on the New York Stock Exchange. During "
                "2022, 2021 and 2020, the quarterly cash dividend was $0.55, $0.50 and $0.50 "
                "per share, respectively.",
                "backed",
            ),
        ),
    ),
    Check(
        "day",
        "a day (or a month of a year) the passage does not say, compared whole: each of "
        '"28 February 2024" may be in a passage that says 28 February 2025 and 1 December '
        '2024 (the same day written "February 28, 2024", "2024-02-28", "28.02.2024", "the '
        '28th day of February, 2024" is that day, and so is a day inside a range, "February '
        '27-29, 2024", or listed for several years, "December 31, 2023 and 2022"; a passage '
        "that writes no day or month is left to the figure check)",
        "the passage does not say 28 February 2024 (it gives 28 February 2025)",
        Effect.FLAGS,
        "en",
        (
            _E(
                "The lease ends on 28 February 2024 [1].",
                "The lease runs from 1 March 2023 to 28 February 2025 and is up for renewal on 1 "
                "December 2024.",
                "flagged",
            ),
            _E(
                "The lease ends on February 28, 2025 [1].",
                "The lease runs from 1 March 2023 to 28 February 2025 and is up for renewal on 1 "
                "December 2024.",
                "backed",
            ),
            _E(  # a month of a year: that month of that year, not the month of another
                "The lease began in March 2024 [1].",
                "The lease runs from 1 March 2023 to 28 February 2025 and is up for renewal on 1 "
                "December 2024.",
                "flagged",
            ),
            _E(  # a day the passage writes without its year, the year said elsewhere
                "The board met on 30 May 2023 [1].",
                "In 2023 the board met twice: on 30 May and on 2 October.",
                "backed",
            ),
        ),
    ),
    Check(
        "figure_place",
        "a figure the passage gives, but not in the sentence the claim rests on",
        "the passage says 1850, but not in the sentence closest to this",
        Effect.FLAGS,
        "any",
        (
            _E(
                "France took Algeria in 1850 [1].",
                "France took Algeria in 1830. The empire grew. In 1850 it expanded again.",
                "flagged",
            ),
            _E(  # the mill closed in 1931; nothing says it employed workers until then
                "The mill, built in 1820 by Thomas Grey, employed workers until 1931 [1].",
                "Thomas Grey had the mill erected on the river in 1820. It employed two "
                "hundred people at its height. The mill closed in 1931 after the flood.",
                "flagged",
            ),
        ),
    ),
    Check(
        "line_lent",
        "a claim resting on two lines of one kind (a list, a statement, a booking) that takes "
        "one line's figure or name in place of the other's own (``lines``)",
        "the passage gives 20 on another line (“Take atorvastatin 20 mg once daily at "
        "night.”), not on “Take metformin 500 mg twice daily.”",
        Effect.FLAGS,
        "any",
        (
            _E(
                "Take metformin 20 mg twice daily [1].",
                "Take metformin 500 mg twice daily. Take atorvastatin 20 mg once daily at night.",
                "flagged",
            ),
            _E(
                "The return flight is SK 1463 [1].",
                "Outbound: SK 1463, Friday 14 March. Return: SK 1470, Sunday 16 March.",
                "flagged",
            ),
            _E(
                "The Premium plan is $10 per month [1].",
                "Basic: $10 per month. Premium: $15 per month.",
                "flagged",
            ),
            _E(  # a sentence going on about the other's thing lends its figure
                "The company paid a dividend of $2.1 billion in 2023 [1].",
                "In 2023 the company paid a dividend. The total was $2.1 billion.",
                "backed",
            ),
            _E(  # a figure from each line: both taken
                "Revenue was $5.2 billion and operating income $1.1 billion [1].",
                "Revenue was $5.2 billion. Operating income was $1.1 billion.",
                "backed",
            ),
        ),
    ),
)
