"""English for the verdict's checks: the word lists the language-neutral checks look words up in.

Each list names what it is for; the checks that read it are in ``app/core/verdict/checks.py``.
Another language gets a module of its own with the same names.
"""

from __future__ import annotations

import re

from app.core.text import STOPWORDS

__all__ = ["STOPWORDS"]


def _list(text: str) -> list[str]:
    """The words of a space-separated list, in order (long lists stay readable as prose)."""
    return text.split()


def _words(text: str) -> frozenset[str]:
    """The words of a space-separated list, as a set."""
    return frozenset(text.split())


# Words an answer uses about its sources and itself: never what a claim is about.
ANSWER_FILLER = _words(
    "also may might must shall one ones s t however therefore thus yes according source sources"
    " passage passages document documents summary overall conclusion additionally furthermore"
    " moreover finally unfortunately specifically answer answers"
)
# The hedges and quantifiers a paraphrase adds ("it seems", "still", "every", "something
# like"): no term a passage must hold to back the claim, though the checks that read a
# sentence's words in order still see them.
PARAPHRASE_FILLER = _words(
    "every either several something anything everything seem seems still like way inside"
    " simply basically actually really whose"
)
# Phrases that link sentences, or say nothing themselves.
CONNECTIVES = (
    "in addition",
    "in fact",
    "in particular",
    "in contrast",
    "in general",
    "in short",
    "in summary",
    "as a result",
    "for example",
    "for instance",
    "of course",
    "on the other hand",
    "in other words",
    # a light verb that says only that something happened: "the meeting took place in 1755"
    # is the passage's "they met in 1755"
    "take place",
    "takes place",
    "took place",
    "taken place",
    "taking place",
)
# Verbs that say little by themselves ("make gains", "take part", "have a role"): the meaning
# is in the noun or particle with them. As lemmas.
LIGHT_VERBS = _words("make take have give")
# A word that negates the word it modifies ("never", "not"), and determiners that negate
# their noun ("no troops", "neither side").
NEGATORS = _words("not n't never no nowhere neither nor")
# The words that set a thing against another, denying it: "specificity rather than
# inducibility", "steam instead of diesel" (the adverb, and the word it leans on).
DENYING = {"rather": "than", "instead": "of"}
NEGATING_DETERMINERS = _words("no neither none")
RELATIVE_PRONOUNS = _words("which who whom that whose")
# Participles that work as prepositions ("starting with Villion", "including New Orleans"):
# the clause's subject does not do them
PREPOSITIONAL_PARTICIPLES = _words(
    "starting beginning including excluding following according regarding concerning"
    " considering given compared based depending"
)

_UNITS = _list(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    " fifteen sixteen seventeen eighteen nineteen twenty"
)
_TENS = _list("thirty forty fifty sixty seventy eighty ninety")
_ORDINALS = _list(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
)
# Spelled figures, read as their values.
NUMBER_WORDS: dict[str, str] = {
    **{w: str(i) for i, w in enumerate(_UNITS)},
    **{w: str(10 * i) for i, w in enumerate(_TENS, 3)},
    **{w: str(i) for i, w in enumerate(_ORDINALS, 1)},
}
# Figures spelled in two words joined by a hyphen ("forty-five", "twenty-eight"), read as one
# (``spelled_figures``).
_COMPOUND_FIGURE = re.compile(
    r"\b(" + "|".join(["twenty", *_TENS]) + r")[-‐‑ ](" + "|".join(_UNITS[1:10]) + r")\b",
    re.IGNORECASE,
)
# Spelled figures a claim's words may give for a passage's digits ("It serves ten" for "Serves
# 10"): the cardinals from two ("one" is as often a pronoun, "first" a place in a series).
CARDINAL_WORDS: dict[str, str] = {
    w: n for w, n in NUMBER_WORDS.items() if w in _UNITS[2:] or w in _TENS
}


# Quantities and units said in words, as figures and signs: "half an hour" is 0.5 hour, "a
# dozen eggs" 12 eggs, "per cent" "%", a currency's code its sign.
# How often: "a day", "per week", "every month", or one word ("daily"), after "N times"
# (``measures``); each period in days.
PERIOD_DAYS = {"hour": "1/24", "day": "1", "night": "1", "week": "7", "fortnight": "14"}
PERIOD_DAYS |= {"month": "30", "year": "365"}
PERIOD_ADVERBS = {"hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week"}
PERIOD_ADVERBS |= {"fortnightly": "fortnight", "monthly": "month", "yearly": "year"}
PERIOD_ADVERBS |= {"annually": "year"}
PER_PERIOD = frozenset({"a", "an", "per", "every", "each"})
_PERIOD = (
    r"(?=\s+(?:(?:a|an|per|every|each)\s+(?:"
    + "|".join(PERIOD_DAYS)
    + r")|"
    + "|".join(PERIOD_ADVERBS)
    + r")\b)"
)
_SAID_QUANTITIES = (
    # how often, as a count of times: "twice daily" is "2 times a day"
    (re.compile(r"\bonce" + _PERIOD, re.IGNORECASE), "1 time"),
    (re.compile(r"\btwice" + _PERIOD, re.IGNORECASE), "2 times"),
    (re.compile(r"\bthrice" + _PERIOD, re.IGNORECASE), "3 times"),
    (re.compile(r"\bhalf an? (hour|day|minute|week)\b", re.IGNORECASE), r"0.5 \1"),
    (re.compile(r"\bhalf a dozen\b", re.IGNORECASE), "6"),
    (re.compile(r"\ba dozen\b", re.IGNORECASE), "12"),
    (re.compile(r"(\d)\s*(?:per ?cent|percent)\b", re.IGNORECASE), r"\1%"),
    (re.compile(r"\s*degrees? Celsius\b", re.IGNORECASE), " °C"),
    (re.compile(r"\s*degrees? Fahrenheit\b", re.IGNORECASE), " °F"),
    # a currency's code before or after a figure, as its sign
    (re.compile(r"\bEUR\s?(?=\d)|(?<=\d)\s?EUR\b"), " € "),
    (re.compile(r"\bGBP\s?(?=\d)|(?<=\d)\s?GBP\b"), " £ "),
    (re.compile(r"\bUSD\s?(?=\d)|(?<=\d)\s?USD\b"), " $ "),
)


def spelled_figures(text: str) -> str:
    """``text`` with each figure spelled in two words as its digits, and the quantities said
    in words as figures: "forty-five minutes" -> "45 minutes", "half an hour" -> "0.5 hour",
    "a dozen eggs" -> "12 eggs", "twice daily" -> "2 times daily", "96.5 per cent" -> "96.5%",
    "35 degrees Celsius" -> "35 °C", "EUR 1,200" -> "€ 1,200"."""
    text = _COMPOUND_FIGURE.sub(
        lambda m: str(int(NUMBER_WORDS[m[1].lower()]) + int(NUMBER_WORDS[m[2].lower()])), text
    )
    for pattern, figure in _SAID_QUANTITIES:
        text = pattern.sub(figure, text)
    return text


def _units(spec: str, measure: str) -> dict[str, tuple[str, str]]:
    """Unit words, each with its measure and its size in the measure's base unit."""
    return {
        word: (measure, size)
        for group in spec.split(";")
        for size, *words in [group.split()]
        for word in words
    }


# The units a figure is compared in across ("1 hour" is "60 minutes", "15.9 mm" is "1.59 cm"),
# each with its size in its measure's base unit (a second, a metre, a gram, a litre). Letters
# that name other things too ("m": metres, minutes or million; "l"; "h") are left out.
UNITS: dict[str, tuple[str, str]] = {
    **_units(
        "1 second seconds sec secs; 60 minute minutes min mins; 3600 hour hours hr hrs;"
        " 86400 day days; 604800 week weeks; 1209600 fortnight fortnights",
        "time",
    ),
    **_units(
        "1/1000 millimetre millimetres millimeter millimeters mm;"
        " 1/100 centimetre centimetres centimeter centimeters cm;"
        " 1 metre metres meter meters; 1000 kilometre kilometres kilometer kilometers km",
        "length",
    ),
    **_units(
        "1/1000 milligram milligrams mg; 1 gram grams g; 1000 kilogram kilograms kg kilo kilos",
        "mass",
    ),
    **_units(
        "1/1000 millilitre millilitres milliliter milliliters ml; 1 litre litres liter liters",
        "volume",
    ),
    # an hour of the clock is no length of time: "5 pm" does not back "five minutes"
    **_units("1 am pm a.m. p.m. o'clock", "clock"),
}


# Words that scale the figure before them ("1,577 million").
SCALE_WORDS: dict[str, int] = {
    "hundred": 100,
    "thousand": 10**3,
    "thousands": 10**3,
    "million": 10**6,
    "millions": 10**6,
    "mn": 10**6,
    "billion": 10**9,
    "billions": 10**9,
    "bn": 10**9,
    "trillion": 10**12,
}

# The suffixes of ordinals written in figures ("21st"): the figure, not a word of its own.
ORDINAL_SUFFIXES = _words("st nd rd th")
# Month names: a capitalised one inside a sentence is a date's part, compared like a figure.
MONTHS = _words(
    "january february march april may june july august september october november december"
)
# The days of a month written as ordinal words ("the fifth of March 2024"), with their numbers.
_DAY_ORDINALS = _list(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
    " thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
)
DAY_ORDINALS: dict[str, int] = {
    **{w: i for i, w in enumerate(_DAY_ORDINALS, 1)},
    **{f"twenty-{w}": 20 + i for i, w in enumerate(_DAY_ORDINALS[:9], 1)},
    "thirtieth": 30,
    "thirty-first": 31,
}
# The months as a date writes them, in full or cut short ("Sept."), with their numbers.
MONTH_NUMBERS = {
    name: number
    for number, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
# Months and days of the week cut short, as bookings and statements write them ("Fri 14 Mar"),
# with their whole names.
SHORT_DAY_WORDS: dict[str, str] = {
    **{
        short: whole
        for whole in MONTHS
        for short, number in MONTH_NUMBERS.items()
        if number == MONTH_NUMBERS[whole] and short != whole
    },
    **{
        short: whole
        for whole, shorts in (
            ("monday", "mon"),
            ("tuesday", "tue tues"),
            ("wednesday", "wed"),
            ("thursday", "thu thur thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        )
        for short in shorts.split()
    },
}


def whole_day_word(word: str, next_to_figure: bool) -> str | None:
    """The whole name of a month or weekday written short ("Mar", "Fri."), capitalised and
    next to a figure ("14 Mar", "Fri 14"), as a date writes it; None for any other word ("sat
    down", "Sun" alone)."""
    if not (word[:1].isupper() and next_to_figure):
        return None
    return SHORT_DAY_WORDS.get(word.rstrip(".").lower())


# Verbs that deny the thing they take as object, as lemmas: "this precludes the need for a
# dedicated path" says no dedicated path is needed.
PRECLUDING = _words("preclude obviate")
# Words that negate what follows them (``facts``), verbs among them: "this precludes the need
# for a dedicated path".
NEGATING_WORDS = _words(
    "not never no none nobody nothing neither nor without"
    " refuse refuses refused refusing refusal forbid forbids forbade forbidden"
) | {verb + ending for verb in PRECLUDING for ending in ("", "s", "d")}
# Adjectives that say "cannot" of the verb after "to" or "of": "unable to legislate" is
# "cannot legislate", "impossible to model" is "can't be modeled" (not "impossible that").
UNABLE = _words("unable impossible incapable")
# Words that deny the verb they govern ("refused to allow", "the refusal to allow", "barred
# from settling", "stop responding"), as lemmas: that verb is negated.
REFUSING = _words("refuse refusal forbid prohibit bar ban prevent stop cease")
# A negation followed by these negates no word: "not only", "not just", "no doubt".
NOT_NEGATING_AFTER = _words("only just merely solely least doubt")
# Adverbs that say the same before a negation as after it: "would otherwise not be" is
# "would not otherwise be" (not so "always not" and "not always", nor "still not").
NEGATION_MOVED = _words("otherwise")
# Words that end a negation's scope: "not in Paris but in Lyon".
NEGATION_SCOPE_END = _words("and but or while whereas which who that because")
# Quantifiers that negate the clause they open: "None of the attacks succeeded".
NEGATIVE_QUANTIFIERS = _words("none neither nothing nobody no")
# Pronouns: a span holding one may name what it stands for in the sentences before it.
PRONOUNS = _words("he she it they him her them his hers its their theirs this these those")
# An ordinal in these phrases says when or how, not which of a count: "at first as a fiefdom".
ORDINAL_IDIOMS = frozenset({"at first"})  # (two words: the one before and the ordinal)
# A passage's "a single statement" says a claim's "one statement": the figure 1.
ONE_SAID_AS = _words("single")
# "only one of the three": after these, "one" is a count, the figure 1.
ONE_COUNTED_AFTER = _words("only just exactly")
# "the one you're in", "one of them": after these, "one" is a pronoun, not the figure 1.
ONE_AS_PRONOUN_BEFORE = _words("the this that each any every which another no no-one")
# "Shi Tianze was one Han Chinese leader who defected": after a copula, "one" says which kind
# of thing the subject is (one of them), not how many there were, except after "there".
ONE_AS_MEMBER_AFTER = _words("is was are were be been being")
# Pairs of opposites, each side as written (lower case, its usual forms): the axis is named by
# its first word. Comparatives, superlatives, time order and modality are opposites too
# (``facts``: a sentence saying one side where its span says the other is contradicted).
OPPOSITES = (
    "pass passed passes passing succeed succeeded succeeds success successful successfully"
    " | fail failed fails failing failure failures unsuccessful",
    "increase increased increases increasing rise rises rose risen rising grow grows grew grown"
    " growing growth | decrease decreased decreases decreasing decline declined declines"
    " declining fall falls fell fallen falling drop dropped drops dropping reduce reduced"
    " reduces reducing reduction shrink shrank shrunk shrinking",
    "before earlier prior preceded preceding | after later afterwards subsequently subsequent",
    "early earliest | late latest",
    "win wins won winning winner winners victory victorious | lose loses lost losing loser"
    " losers defeat defeated",
    "most greatest | least",
    "more | less fewer",
    "best | worst",
    "better | worse",
    "high higher highest | low lower lowest",
    "large larger largest big bigger biggest | small smaller smallest",
    "longer longest | shorter shortest",
    "maximum | minimum",
    "oldest older | youngest younger newest newer",
    "first | last",
    "born birth | died death",
    "possible possibly | impossible",
    "likely | unlikely",
    "able | unable",
    "legal legally lawful | illegal illegally unlawful",
    "true | false",
    "correct correctly | incorrect incorrectly",
    "may might could | must shall",
    "optional voluntary | mandatory compulsory obligatory required",
    "accept accepted accepts accepting approve approved approves approving | reject rejected"
    " rejects rejecting refuse refused",
    "allow allowed allows permit permitted permits | forbid forbade forbidden prohibit"
    " prohibited prohibits ban banned bans",
    "include included includes including | exclude excluded excludes excluding",
    "above | below",
    "north northern | south southern",
    "east eastern | west western",
    "buy buys bought buying | sell sells sold selling",
    "import imports imported | export exports exported",
    "inside | outside",
    "majority | minority",
    "positive positively | negative negatively",
    "strong stronger strongest | weak weaker weakest",
    "agree agreed agrees | disagree disagreed disagrees",
    # the words of statements, bookings, prescriptions and settings (not "close to": near)
    "open opens opened opening | closes closed closing",
    "start starts started starting begin begins began begun | stop stops stopped stopping",
    "enable enables enabled enabling | disable disables disabled disabling",
    "once | twice",
    "faster fastest quicker quickest | slower slowest",
    "arrive arrives arrived arriving arrival | depart departs departed departing departure",
    "debit debits debited | credit credits credited",
    "deposit deposits deposited | withdraw withdraws withdrew withdrawal withdrawals",
    "add adds added adding | remove removes removed removing",
    "wet | dry",
    "hot | cold",
    # an exception against a concession: "in addition, unless held within six months" is not
    # "in addition even when held within six months" (``CONCESSIVE``)
    "unless | even",
)
# "even" is the concession only before these ("even when they fall", "even if").
CONCESSIVE = _words("even")
CONCEDED = _words("when if though where after before")

# Subordinators that set one clause against another ("…, while packet switching is
# characterized by …"): each side says something of its own subject (``contrast.py``).
CONTRAST_MARKS = _words("while whereas")
# Words by which a sentence sets things against each other itself ("unlike circuit
# switching", "rather than per connection"): such a sentence may hold both sides' words.
CONTRASTING = re.compile(
    r"\b(?:unlike|whereas|while|rather\s+than|instead\s+of|in\s+contrast|compared\s+(?:to|with)"
    r"|as\s+opposed\s+to|but)\b",
    re.IGNORECASE,
)

# Auxiliaries a question opens or turns on ("Did …", "What was …").
QUESTION_AUXILIARIES = _words(
    "is are was were am do does did can could will would should shall may might must has have"
    " had isn't aren't wasn't weren't don't doesn't didn't can't couldn't won't wouldn't"
    " hasn't haven't"
)
# "how many", "how long", "how old": after "how", these ask for a number.
HOW_ADJECTIVES = _words(
    "many much long old far big large often tall high fast deep wide heavy small expensive hot cold"
)
# "what year", "which century": after a wh-word, these ask for a time.
TIME_NOUNS = _words(
    "year years date dates day days month months century centuries decade decades time era"
    " period age season"
)
# "what percentage", "what amount": after a wh-word, these ask for a number.
NUMBER_NOUNS = _words(
    "percentage percent number amount proportion share rate size price cost population total"
    " count sum value length height weight distance speed temperature score"
)
# Nouns that ask for something named: the answer must bring a new name (or number).
NAMED_NOUNS = _words(
    "case person man woman city country town village company firm team name king queen"
    " president author writer state river university book film movie album song party"
    " organization organisation group court band language emperor ruler leader general"
    " scientist artist composer player club ship law act treaty battle war island mountain"
    " region province county capital nation empire dynasty church school college newspaper"
    " magazine brand product model species planet"
)
# Named things whose names carry the noun ("the Scotland Act 1998", "the Treaty of Rome", "the
# Battle of Hastings"): where the passages name one so, an answer names it with the noun too.
NOUNS_IN_NAMES = _words(
    "act treaty battle war agreement accord convention declaration charter amendment bill"
    " doctrine theorem prize award"
)
# Words between a wh-word and the noun it asks for ("what kind of", "which one").
WH_SKIPPED = _words("kind type sort form name one ones of the a an")
# "What other Northern European cities …?": before the kind a wh-word asks for, these ask for
# another one of it.
WH_OTHER = _words("other another else")
# Words of quantity: a count or share, never a place or a name.
QUANTITY_WORDS = _words(
    "none no all several few many most half quarter third dozen dozens hundreds thousands"
    " millions billions majority minority"
)
# Words that give a time: an answer with one answers "when".
TIME_CUES = _words(
    "century decade era period age reign dynasty war ago season spring summer autumn winter"
    " morning evening night yesterday today during after before until since early late later"
    " earlier"
)
# Words that give a reason: an answer with one answers "why".
REASON_CUES = _words(
    "because since due cause caused causes reason so result order allow enable lead led owing"
    " thanks purpose aim"
)
# The words by which a question asks for a reason ("Why must they not …?").
REASON_WORDS = _words("why")
# Words an answer uses to restate a question ("the answer is", "is called"): no new content.
ECHO_WORDS = _words(
    "answer answers question questions ask asked asks called known named term refer refers"
    " referred mention mentioned"
)
# A figure set against the same period before ("fell 74% year over year"): how a question
# frames a comparison that a table's columns of periods make without these words.
PERIOD_OVER_PERIOD = re.compile(
    r"\b(?:year|quarter|month|week)[- ]over[- ](?:year|quarter|month|week)\b|\b(?:yoy|qoq)\b",
    re.IGNORECASE,
)
# Verbs that say one thing is another ("X was Y", "is called").
COPULAS = _words("is was are were called named known be")
# Words of one sense, compared as one word (``terms.same_sense``): "dogs are not permitted" is
# not "dogs are allowed", and "not allowed" says it. Only words that say the same in any
# context, as verbs and as nouns.
SAME_SENSE = ("allow permit", "forbid prohibit", "require oblige")
# Words of a party's name that tell no party from another: titles and company forms
# (``labelled``: "Mr Jones" is Bob Jones, "Acme Ltd" is not "Beta Ltd").
PARTY_FORMS = _words("mr mrs ms dr prof sir the ltd inc llc gmbh corp co plc sa ag bv lp llp")
# Titles before a name, which two people share without being one ("Dr Patel", "Dr Khan";
# ``relations.same``).
NAME_TITLES = _words(
    "mr mrs ms miss mx dr prof sir dame lord lady king queen prince princess saint st president"
    " general captain pope emperor empress duke duchess count countess"
)
# Verbs whose subject and object may change places and say the same ("Britain fought France",
# "France fought Britain"; ``attest``).
SYMMETRIC_VERBS = _words(
    "fight battle marry wed meet merge play date divorce partner ally collaborate compete"
    " negotiate trade correspond"
)
# What a sentence says a named party is with: "Bob Jones is the landlord", "acts as the tenant"
# (``labelled``).
BEING = _list(
    "is was are were remains remained becomes became acts_as acted_as serves_as served_as"
)
# "in the Renaissance", "under Louis XIV": a name after these can say when.
TIME_PREPOSITIONS = _words("in during after before since until by at on under")
# Words a month named alone may follow ("In May", "Early March", "Since June"); after any
# other capitalised word a month's name is part of a name ("Theresa May", "Long March").
MONTH_LEADS = TIME_PREPOSITIONS | _words(
    "early late mid last next this each every of from through throughout till around"
)
# Prepositions a place follows ("in Paris", "near the river").
PLACE_PREPOSITIONS = _words("in at near on inside outside from beside across along into")
# Words a bare value comes with: its unit or scale.
VALUE_UNITS = _words(
    "thousand thousands million millions billion billions trillion usd dollar dollars eur"
    " euro euros gbp pound pounds percent per cent approximately about around roughly total"
)
# The words that may stand between a figure and the year it is for: its unit or scale, and
# "$8.83 billion in 2016", "$2.1 million for fiscal 2019" (``dated`` pairs them; a verb
# between leaves it open).
FIGURE_TO_YEAR = VALUE_UNITS | _words(
    "in for during of at by as the fiscal fy year calendar share shares"
)
# Verbs of working an answer out: "so the DPO can't be finished" says the question cannot be
# answered from what was found (``declines``).
WORKING_OUT = _words("compute calculate determine derive finish complete answer work")
# What an answer calls the passages it was given: a sentence about them is no claim about the
# world ("The sources do not say…", "The provided notes don't mention MySQL.": people index
# their notes, and models name the passages so).
SOURCE_NOUNS = _words(
    "source sources passage passages document documents text texts context excerpt excerpts"
    " file files filing filings page pages snippet snippets extract extracts information"
    " note notes"
)
# Adjectives that point at the passages given, not at files of a kind ("the provided files",
# "the relevant passages"; not "hidden files", "large documents").
SOURCE_QUALIFIERS = _words(
    "provided given available above following relevant retrieved cited attached supplied shared"
    " uploaded listed quoted same other"
)
# The answerer speaking of itself ("I couldn't find…").
ANSWERER = _words("i we")
# Words that say, unnegated, that something is not there or not known: "the documents are
# silent on…", "it is unclear from the sources…", "I'm unable to answer…".
LACKING = _words("silent unclear unknown unavailable absent missing unable")
# Verbs only documents are said to do: "the designer is not mentioned" (by the sources). Not
# "list": a city-centre is "listed as a World Heritage Site".
DOCUMENT_VERBS = _words("mention state specify")
# What a passage gives: "No details are given about…" (the sources, unnamed, do not give).
INFORMATION_NOUNS = _words(
    "detail details information data figure figures mention indication explanation breakdown"
    " description"
)
# Verbs of giving information, in the passive: "No details are given about…".
GIVING_VERBS = _words("give provide offer include")
# Quantifiers that negate the clause they are the subject or object of ("None of the passages
# mention…", "Nothing in the sources…").
NEGATIVE_PRONOUNS = _words("none nothing nobody neither nowhere")
# The question words: a question asks by one, and a gap statement may name what is missing by
# one alone ("The sources do not say when.").
WH_WORDS = _words("what which who whom whose when where why how")
# A question that asks how to do something ("How do I get Sequel to return both columns?"): its
# words say what the person wants done, not something the files are taken to state.
HOW_TO = re.compile(
    r"^\W*how (?:do|can|could|should|would|might|to)\b(?: (?:i|we|you|one)\b)?", re.IGNORECASE
)
# Words that leave a gap statement's topic open ("The sources don't say." / "…answer that").
EMPTY_TOPIC = _words(
    "answer answers question questions this that it anything something everything one"
    " specifically directly clearly exactly such all any provided given available anywhere"
    " nowhere"
)

# A country or region and what its people and things are called: "France" and "French" name one
# place (either backs the other in a name check).
DEMONYMS = (
    "France French Frenchman Frenchmen",
    "Britain British Briton Britons",
    "England English Englishman",
    "Scotland Scottish Scots Scot",
    "Wales Welsh",
    "Ireland Irish",
    "Spain Spanish Spaniard Spaniards",
    "Portugal Portuguese",
    "Netherlands Holland Dutch",
    "Germany German Germans",
    "Poland Polish Pole Poles",
    "China Chinese",
    "Japan Japanese",
    "Mongolia Mongol Mongols Mongolian",
    "Norway Norwegian Norse",
    "Denmark Danish Dane Danes",
    "Sweden Swedish Swede Swedes",
    "Italy Italian Italians",
    "Greece Greek Greeks",
    "Russia Russian Russians",
    "Europe European Europeans",
    "America American Americans",
    "Africa African Africans",
    "Asia Asian Asians",
    "Canada Canadian Canadians",
    "Mexico Mexican Mexicans",
    "India Indian Indians",
    "Switzerland Swiss",
    "Austria Austrian",
    "Belgium Belgian",
    "Turkey Turkish Turks",
    "Egypt Egyptian Egyptians",
    "Israel Israeli",
    "Iran Iranian Persia Persian",
    "Arabia Arab Arabs Arabian",
    "Normandy Norman Normans",
    "Byzantium Byzantine",
    "Rome Roman Romans",
)

# How a table states the scale of its bare figures: "(in thousands, except per share data)",
# "(Dollars in millions)", "in millions of U.S. dollars".
# A figure written as a percentage, with its sign or in words: "8%", "8 percent", "8 per cent",
# "8 pct" (``figures.computed`` works it out only as a percentage).
PERCENT = re.compile(
    r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s?(?:%|percent\b|per cent\b|pct\b)", re.IGNORECASE
)
STATED_SCALE = re.compile(
    r"\b(?:in|amounts in|dollars in|\$ in|usd in)\s+(thousands|millions|billions)\b",
    re.IGNORECASE,
)

# Words that say a figure was worked out from others ("an operating margin of 34.6%", "the
# change", "in total"): a figure the passage does not give may then be the sum, difference,
# product, ratio or percentage change of figures it does (``figures.computed``).
COMPUTATION_WORDS = _list(
    "margin margins ratio ratios total totals sum sums difference change changes growth grew"
    " increase increased decrease decreased percent percentage share average plus minus times"
    " divided yields gives equals"
)
# What a sentence says an expression gives, between the two: "`3 === Integer` returns `false`".
RESULT_VERBS = (
    "returns",
    "return",
    "gives",
    "give",
    "evaluates to",
    "yields",
    "outputs",
    "prints",
    "results in",
    "is",
)
# Verbs that order their subject and object in time: "A precedes B" puts A first, "A follows B"
# puts B first (``order.py``; "succeed" only with an object: "succeeds that of the Anglo-Saxon").
ORDER_BEFORE = frozenset({"precede", "predate", "antedate", "forerun"})
ORDER_AFTER = frozenset({"follow", "succeed", "postdate"})
