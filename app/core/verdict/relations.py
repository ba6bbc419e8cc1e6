"""What a sentence asserts, read off its dependency tree as arcs: who did what to whom, with what.

Word overlap cannot tell "Rollo swore fealty to Charles" from "Charles swore fealty to Rollo":
both hold the same words. A dependency tree can: each content word hangs from the word it
modifies or completes, by a role. So a sentence is read as *arcs*, ``(head, role, dependent)``
between content words, with the function words folded into the role (a preposition becomes
``prep:to``; a passive subject is the object, its ``by`` phrase the subject; a copula hands its
subject to the noun or adjective it links; a relative pronoun is the noun it stands for; the
parts of a name — "King Charles III" — are one filler). A claim is then compared arc by arc
with the passage sentences it rests on, in the manner of Goyal and Durrett's dependency-arc
entailment (2020), without their trained model:

- an arc is **attested** when a passage sentence holds the same two words linked the same way,
  or close in its tree with no other link between them; a claim that swaps its verb for a
  synonym still has its arguments in the same roles of one passage verb, which attests them;
- an arc is **contradicted** when the passage links the same words by another role (the
  subject made the object: a role swap), or gives the same slot of the same word another name
  or figure (the date of something else, another person), or negates the word the claim
  affirms. What the passage states elsewhere in another sentence does not contradict;
- names and figures must be attested: a figure on its own proves nothing if the passage gives
  it to something else.

Words are compared by their Porter stems (``text.stem``), figures by value (``figures``), names
also by their initials ("EU" for "European Union") and without a possessive ("Poland's").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from app.core.text import link_words, stem
from app.core.verdict import figures
from app.core.verdict.lang import en
from app.core.verdict.names import spelled_alike
from app.core.verdict.terms import same_sense

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

# Roles: the arguments of a verb (who did what to whom) are its core; swapping two of them
# changes who did what.
SUBJ, OBJ = "subj", "obj"
CORE = frozenset({SUBJ, OBJ})
_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"})
_NAME_PARTS = frozenset({"compound", "flat", "nmod", "nummod", "poss"})
_FUNCTION_DEPS = frozenset(
    {"det", "punct", "cc", "aux", "auxpass", "case", "mark", "expl", "dep", "predet", "prt"}
)
_SUBJ_DEPS = frozenset({"nsubj", "csubj", "nsubj:xsubj"})
_OBJ_DEPS = frozenset({"dobj", "nsubjpass", "csubjpass", "dative", "oprd", "attr", "acomp"})
_CODE_CHARS = frozenset("/#()=<>{}[]`?_")
MAX_HOPS = 3  # words this close in a tree are linked, when no arc names the link
# A qualified or camel-cased identifier ("Devise::TestHelpers", "ControllerHelpers").
_IDENTIFIER = re.compile(r"::|[a-z][A-Z]")


@dataclass(frozen=True)
class Word:
    """One content word of a sentence: its comparison key and what kind of word it is."""

    key: str  # the stem of its lemma (lower case), or a figure's value
    text: str  # as written
    kind: str  # "name", "number", "noun", "verb", "adj", "adv"
    i: int  # its token's index in the parse
    negated: bool = False  # "not", "never", "no" on it
    parts: frozenset[str] = frozenset()  # the keys of a multi-word name: {"king", "charl", "iii"}
    # the capitalised words a name goes on with after "of"/"on" (``_name_tail``), for its
    # initials: "Functioning European Union" of "Treaty" ("TFEU")
    tail: str = ""

    @property
    def keys(self) -> frozenset[str]:
        return self.parts | {self.key}

    @property
    def specific(self) -> bool:
        """A name or a figure: a claim about it must be the passage's claim about it."""
        return self.kind in ("name", "number")


@dataclass(frozen=True)
class Arc:
    """``dep`` completes or modifies ``head`` in ``role``."""

    head: Word
    role: str
    dep: Word
    shared: bool = False  # the slot of a conjunct's first member ("X and Y founded it": Y)


@dataclass
class Reading:
    """A sentence (or a passage sentence) read as content words and the arcs between them."""

    text: str
    words: list[Word] = field(default_factory=list)
    arcs: list[Arc] = field(default_factory=list)
    # (word index, role) of the slots a pronoun fills ("he died"): the sentence may say it of
    # a name an earlier sentence gives
    pronoun_slots: set[tuple[int, str]] = field(default_factory=set)
    _tree: dict[int, int] = field(default_factory=dict, repr=False)  # token -> head token

    def find(self, word: Word) -> list[Word]:
        """This reading's words that are ``word`` (same key, a shared name part, an alias)."""
        return [w for w in self.words if same(word, w)]

    def find_sense(self, word: Word) -> list[Word]:
        """This reading's words that are ``word`` or say what it says ("permitted" for
        "allowed": ``terms.same_sense``), for a negation read across them; never for roles
        ("forbade services and prohibited emigration" gives two verbs two objects)."""
        sense = same_sense(word.key)
        return [w for w in self.words if same(word, w) or w.key in sense]

    def hops(self, a: int, b: int) -> int:
        """Tokens between ``a`` and ``b`` along the tree (a large number when unconnected)."""
        up_a = self._ancestors(a)
        for steps_b, node in enumerate(self._ancestors(b)):
            if node in up_a:
                return up_a[node] + steps_b
        return 99

    def between(self, a: int, b: int) -> set[int]:
        """The tokens on the tree's path from ``a`` to ``b``, the two left out (none when
        unconnected)."""
        up_a, up_b = self._ancestors(a), self._ancestors(b)
        common = next((n for n in up_b if n in up_a), None)
        if common is None:
            return set()
        path = {n for n, k in up_a.items() if k <= up_a[common]}
        path |= {n for n, k in up_b.items() if k <= up_b[common]}
        return path - {a, b}

    def clause(self, i: int) -> int:
        """The verb whose clause token ``i`` is in: the nearest verb above it (itself, if a
        verb), or the root of its tree."""
        verbs = {w.i for w in self.words if w.kind == "verb"}
        up = self._ancestors(i)  # token -> steps up from i
        above = [n for n in up if n in verbs]
        return min(above, key=up.__getitem__) if above else max(up, key=up.__getitem__)

    def _ancestors(self, i: int) -> dict[int, int]:
        out = {i: 0}
        steps = 0
        while i in self._tree and self._tree[i] != i and steps < 40:
            i = self._tree[i]
            steps += 1
            out.setdefault(i, steps)
        return out


def same(a: Word, b: Word) -> bool:
    """Whether two words name the same thing: equal keys, a shared part of a name, a figure of
    the same value, one name the initials of the other, or a long name spelled another way
    ("Moncalm" for "Montcalm")."""
    if a.kind == "number" or b.kind == "number":
        return a.kind == b.kind and figures.same_figure(a.key, b.key)
    if a.key == b.key or ((a.parts & b.keys) | (b.parts & a.keys)) - _TITLE_KEYS:
        return True
    if a.kind == b.kind == "name" and spelled_alike(a.key, b.key):
        return True
    return _initials(a, b) or _initials(b, a)


# a title or a company's form shared by two names makes them no one name ("Dr Patel", "Dr Khan")
_TITLE_KEYS = frozenset(stem(w) for w in en.NAME_TITLES | en.PARTY_FORMS)


def _initials(short: Word, long: Word) -> bool:
    """'EU' for 'European Union', 'U.N.' for 'United Nations'."""
    letters = "".join(ch for ch in short.text if ch.isalpha())
    if not (2 <= len(letters) <= 6 and letters.isupper() and long.kind == "name"):
        return False
    return "".join(p[0] for p in _spelled_parts(long)).lower() == letters.lower()


def _spelled_parts(word: Word) -> list[str]:
    return [p for p in f"{word.text} {word.tail}".split() if p[:1].isupper()]


def read(doc: Doc | Span) -> Reading:
    """The arcs of one parsed sentence (or span of one)."""
    tokens = list(doc)
    start = tokens[0].i if tokens else 0
    inside = {t.i for t in tokens}
    words: dict[int, Word] = {}
    for t in tokens:
        w = _word(t, inside)
        if w is not None:
            words[t.i] = w
    out = Reading(doc.text, list(words.values()))
    out._tree = {t.i - start: t.head.i - start for t in tokens if t.head.i in inside}
    for t in tokens:
        if t.i not in words or _is_name_part(t, words):
            continue
        for head, role in _heads(t, inside):
            if head.i in words and head.i != t.i:
                out.arcs.append(Arc(words[head.i], role, words[t.i], t.dep_ == "conj"))
    for t in tokens:
        if t.pos_ == "PRON" and t.lower_ not in en.RELATIVE_PRONOUNS:
            for head, role in _heads(t, inside):
                if head.i in words:
                    out.pronoun_slots.add((head.i - start, role))
    # indices relative to the span, so hops() works for any slice of a doc
    out.words = [_shift(w, start) for w in out.words]
    out.arcs = [
        Arc(_shift(a.head, start), a.role, _shift(a.dep, start), a.shared) for a in out.arcs
    ]
    return out


def _shift(w: Word, start: int) -> Word:
    if not start:
        return w
    return replace(w, i=w.i - start)


def _member_one(t: Token) -> bool:
    """Whether ``t`` is the "one" of a copula's complement ("Shi Tianze was one Han Chinese
    leader who defected"): it says what the subject is, one of them, not how many there were
    (``en.ONE_AS_MEMBER_AFTER``); "there was one survivor" counts."""
    head = t.head
    return (
        t.lower_ == "one"
        and t.dep_ == "nummod"
        and head.dep_ == "attr"
        and not any(c.dep_ == "expl" for c in head.head.children)
    )


def _word(t: Token, inside: set[int]) -> Word | None:
    """The content word of token ``t``, or None for a function word, a pronoun, a stopword
    or the figure part of a scaled figure ("2" of "2 million": the figure is "million")."""
    if t.pos_ not in _CONTENT_POS and not (t.pos_ == "AUX" and _is_copula_head(t)):
        return None
    low = t.text.lower()
    if t.pos_ == "NUM" or t.text[:1].isdigit():
        if _scaled_by_head(t) or _member_one(t):
            return None
        value = _figure(t) or figures.range_of(t.text)
        if value is not None:
            value, text = _spelled_range(t, value)
            return Word(value, text, "number", t.i, negated(t))
    if t.pos_ == "AUX":  # a copula with nothing to hand its subject to: "X is in Paris"
        return Word("be", t.text, "verb", t.i, negated(t))
    if _unit_suffix(t):
        return None
    month = t.pos_ == "PROPN" and low in en.MONTHS  # "In May 2000": no modal verb
    if t.pos_ != "VERB" and (low in en.STOPWORDS or low in en.ANSWER_FILLER) and not month:
        return None
    if not any(c.isalpha() for c in low) or _CODE_CHARS & set(low):
        return None  # a link or code ("3.is_a?(Integer)", "ruby-doc.org/…"): no word
    kind = {"PROPN": "name", "NOUN": "noun", "VERB": "verb", "ADJ": "adj", "ADV": "adv"}.get(
        t.pos_, "noun"
    )
    if kind == "adj" and t.text[:1].isupper() and not t.is_sent_start:
        kind = "name"  # "French", "British": a demonym names a people or a country
    if _IDENTIFIER.search(t.text):
        kind = "name"  # "the `Devise::TestHelpers`", "TestHelpers": code names one thing
    key = _key(t)
    if kind != "name":
        return Word(key, t.text, kind, t.i, negated(t))
    chain = [c for c in _name_chain(t) if c.i in inside]
    parts = frozenset({_key(c) for c in chain} - {""})
    text = " ".join(c.text for c in sorted([*chain, t], key=lambda c: c.i))
    tail = " ".join(c.text for c in _name_tail(t) if c.i in inside)
    return Word(key, text, kind, t.i, negated(t), parts, tail)


def _figure(t: Token) -> str | None:
    """The value of the figure ``t`` (with a scale word: "2 million", "1,577 million")."""
    factor = figures.scale_word(t.text)
    if factor is not None:  # "million" heads "2" (or follows it)
        count = next(
            (
                c
                for c in t.children
                if c.dep_ in ("compound", "nummod", "quantmod")
                and figures.value_of(c.text) is not None
            ),
            None,
        )
        if count is None:
            return None
        return figures.scaled(figures.value_of(count.text) or "0", factor)
    value = figures.value_of(t.text)
    nxt = t.nbor(1) if t.i + 1 < len(t.doc) else None
    if value is not None and nxt is not None and not t.whitespace_:
        suffix = figures.SUFFIXES.get(nxt.text.lower())
        if suffix:  # "$1,305M": the tokenizer split the scale letter off
            return figures.scaled(value, suffix)
    if value is not None and nxt is not None and nxt.head.i != t.i:
        factor = figures.scale_word(nxt.text)
        if factor is not None and nxt.head.i != nxt.i and not list(nxt.children):
            return figures.scaled(value, factor)  # a scale word the parse left unattached
    return value


def _spelled_range(t: Token, value: str) -> tuple[str, str]:
    """A figure's key and text, made a range's when the parse hangs the range's start on it
    by a "to" between them ("estimates ranging from 200,000 to 1,000,000": "200,000" a
    modifier of "1,000,000"), so the range is compared whole, as when written as one token."""
    for c in t.children:
        low = figures.value_of(c.text) if c.dep_ == "quantmod" and c.i < t.i else None
        between = [w.lower_ for w in t.doc[c.i + 1 : t.i]]
        key = figures.range_key(low, value) if low is not None else None
        if key is not None and between in (["to"], ["-"], ["–"]):
            return key, t.doc[c.i : t.i + 1].text
    return value, t.text


def _unit_suffix(t: Token) -> bool:
    """The "M" of "$1,305M", split from its figure by the tokenizer."""
    if t.i == 0 or t.text.lower() not in figures.SUFFIXES:
        return False
    before = t.doc[t.i - 1]
    return not before.whitespace_ and figures.value_of(before.text) is not None


def _percent_sign(t: Token) -> bool:
    """Whether ``t`` is the figure of a percent sign it hangs from ("90" in "90% of ...")."""
    return t.dep_ == "nummod" and t.head.text == "%" and t.head.i == t.i + 1


def _scaled_by_head(t: Token) -> bool:
    """Whether ``t`` is the count of a scale word it hangs from ("2" in "2 million")."""
    return (
        t.dep_ in ("compound", "nummod", "quantmod")
        and t.head.i != t.i
        and figures.scale_word(t.head.text) is not None
    )


def _key(t: Token) -> str:
    text = t.text
    if text.endswith(("'s", "’s")):
        text = text[:-2]
    lemma = t.lemma_ if t.pos_ != "PROPN" else text
    low = lemma.lower().replace(".", "")  # "U.S." is "US"
    if text[:1].isupper():  # "Feb." is "February" (not the verb "mar")
        low = _MONTH_NAMES.get(low, low)
    return stem(low)


# A month's names, cut short or in full, as its full name ("sept" -> "september")
_MONTH_NAMES = {
    name: next(n for n, m in en.MONTH_NUMBERS.items() if m == number)
    for name, number in en.MONTH_NUMBERS.items()
}


def _name_chain(t: Token) -> Iterator[Token]:
    """The tokens that are parts of the name ``t`` heads ("King", "Charles" of "III")."""
    for c in t.children:
        if c.dep_ in _NAME_PARTS and c.pos_ in ("PROPN", "NUM") and c.i < t.i:
            yield c
            yield from _name_chain(c)


def _name_tail(t: Token) -> Iterator[Token]:
    """The capitalised words a name goes on with after "of", "on" or "for" ("Treaty" on "the
    Functioning of the European Union"), for its initials only ("TFEU"): the words that follow
    are names of their own in the reading."""
    for prep in t.children:
        if prep.dep_ != "prep" or prep.lower_ not in ("of", "on", "for") or prep.i < t.i:
            continue
        for obj in prep.children:
            if obj.dep_ == "pobj" and obj.pos_ == "PROPN":
                yield from sorted(_name_chain(obj), key=lambda c: c.i)
                yield obj
                yield from _name_tail(obj)


def _is_name_part(t: Token, words: dict[int, Word]) -> bool:
    head = t.head
    return (
        t.dep_ in _NAME_PARTS
        and t.pos_ in ("PROPN", "NUM")
        and head.i in words
        and words[head.i].kind == "name"
        and t.i < head.i
    )


def negated(t: Token) -> bool:
    """A 'not'/'never' on the word (or on the auxiliary or copula it leans on), or on an adverb
    of it ("will no longer be triggered"), a 'no' determining it ("no troops"), a word of
    refusal governing it ("the crown's refusal to allow", "barred from settling":
    ``en.REFUSING``), "unable to" or "impossible to" before it (``_unable``), a verb of
    precluding taking it as object ("precludes the need": ``en.PRECLUDING``), "without"
    ("without replacing them"), or the word set against another and so denied
    (``_denied``)."""
    if _denied(t) or (t.dep_ == "pcomp" and t.head.lower_ == "without"):
        return True  # "without completely replacing them": not replacing them
    governor = t.head.head if t.dep_ == "pcomp" and t.head.lower_ == "from" else t.head
    if governor is not t.head and governor.dep_ == "dobj":
        governor = governor.head  # "stops a file from showing up": the parse hangs "from" on
        # the object; it is the verb's all the same
    if t.dep_ in ("xcomp", "acl", "pcomp") and governor.lemma_.lower() in en.REFUSING:
        return True
    if t.dep_ in ("xcomp", "pcomp") and _unable(t):
        return True  # "is unable to legislate": cannot legislate
    if t.dep_ == "dobj" and t.head.lemma_.lower() in en.PRECLUDING:
        return True  # "precludes the need for a dedicated path": no need for one
    for c in (*t.children, *(t.head.children if t.dep_ in ("attr", "acomp") else ())):
        low = c.lower_
        if c.dep_ == "neg" and t.pos_ in ("NOUN", "PROPN") and c.i > t.i:
            continue  # "the starting directory, not the one you're in": the other is denied
        after = c.doc[c.i + 1].lower_ if c.i + 1 < len(c.doc) else ""
        if c.dep_ == "neg" and after in en.NOT_NEGATING_AFTER:
            continue  # "not only Smartphone instances": they too, not they not
        if c.dep_ == "neg" or (c.dep_ in ("advmod", "neg") and low in en.NEGATORS):
            return True
        if c.dep_ == "det" and low in en.NEGATING_DETERMINERS:
            return True
        if c.dep_ == "advmod" and any(g.lower_ in en.NEGATORS for g in c.children):
            return True  # "will no longer be triggered"
    return False


def _unable(t: Token) -> bool:
    """Whether "unable", "impossible" or "incapable" governs ``t`` (``en.UNABLE``): "unable
    to legislate" (the adjective's complement), "it is impossible to model the weather" (the
    copula's, beside the adjective), "incapable of flying" (through "of")."""
    head = t.head.head if t.dep_ == "pcomp" else t.head
    if head.lower_ in en.UNABLE:
        return True
    return t.dep_ == "xcomp" and any(
        c.dep_ == "acomp" and c.lower_ in en.UNABLE and c.i < t.i for c in head.children
    )


def _denied(t: Token) -> bool:
    """A noun set against another, and so denied: "its inducibility" in "the specificity
    rather than its inducibility", "diesel" in "steam instead of diesel" (``en.DENYING``): the
    first object of the preposition, within three words of it (a parse that hangs the clause's
    subject there too, "Instead of valves, the entire cylinder rocks", denies only the valves).
    A 'not' before an apposition ("the function (not the constructor)") is left out: passages
    deny so in other words ("not to be confused with the constructor")."""
    if t.pos_ not in ("NOUN", "PROPN") or t.dep_ != "pobj" or not 0 < t.i - t.head.i <= 3:
        return False
    lean = t.head
    if any(c.dep_ == "pobj" and c.i < t.i for c in lean.children):
        return False
    return any(
        c.dep_ == "advmod" and en.DENYING.get(c.lower_) == lean.lower_ for c in lean.children
    )


def _first_conjunct(t: Token) -> Token:
    """The first member of the list ``t`` is conjoined to ("X" of "X, Y and Z")."""
    first = t.head
    while first.dep_ == "conj" and first.head.i != first.i:
        first = first.head
    return first


def _parallel_participle(t: Token, tokens: Sequence[Token]) -> Token | None:
    """The perfect participle before ``t`` that ``t`` continues, when ``t`` is one too ("Henry,
    having succeeded to the throne, and having recanted Protestantism, issued the Edict"): the
    small parser may hang the second on the main clause's verb ("The warfare was quelled …,
    and having recanted"), but parallel participles share their subject. None otherwise."""
    if not _perfect(t):
        return None
    return next((v for v in reversed(tokens) if v.i < t.i and _perfect(v)), None)


def _perfect(t: Token) -> bool:
    """A participle after "having": "having recanted"."""
    return t.tag_ == "VBN" and any(c.dep_ == "aux" and c.lower_ == "having" for c in t.children)


def _is_copula_head(t: Token) -> bool:
    """A form of 'be' that is the head of its clause with no noun or adjective after it."""
    if t.lemma_ != "be":
        return False
    return not any(c.dep_ in ("attr", "acomp") for c in t.children)


def _heads(t: Token, inside: set[int]) -> Iterator[tuple[Token, str]]:
    """The content words ``t`` hangs from, with the role: prepositions, copulas, conjunctions
    and relative pronouns folded in."""
    dep = t.dep_
    if dep in _FUNCTION_DEPS or dep == "ROOT" or t.head.i == t.i:
        return
    if _unit_suffix(t.head) or _percent_sign(t):  # "$1,305M" parsed as the figure modifying
        # "M", "90%" as the figure modifying "%": the figure takes the sign's slot
        yield from _heads(t.head, inside)
        return
    if dep == "conj":  # "X and Y founded Z": Y fills X's slot
        first = _first_conjunct(t)
        if first.i != t.i:
            yield from _heads(first, inside)
        return
    if dep == "pobj":
        prep = t.head
        role = f"prep:{prep.lower_}"
        holder = prep.head
        if prep.dep_ == "agent" and holder.tag_ == "VBN":  # "by the kurultai": the one
            # who acted; the parse also hangs an agent on an active verb ("encouraged to come
            # south by the Lombards": 'come' is no passive), where "by" is a preposition
            role = SUBJ
        elif prep.dep_ in ("prep", "dative") and prep.head.dep_ == "prep":  # "in favour of"
            holder = prep.head.head
        yield from _resolved(holder, role)
        return
    role = _role(dep)
    holder = t.head
    if dep in _SUBJ_DEPS | {"nsubjpass", "csubjpass"} and holder.lemma_ == "be":
        # "X is the capital": the capital is what is said of X
        complement = next((c for c in holder.children if c.dep_ in ("attr", "acomp")), None)
        if complement is not None:
            holder = complement
            role = SUBJ
    if t.lower_ in en.RELATIVE_PRONOUNS and holder.dep_ == "relcl":
        return  # the pronoun itself is no filler: its noun is linked below
    yield from _resolved(holder, role)


def _resolved(holder: Token, role: str) -> Iterator[tuple[Token, str]]:
    """``holder`` itself, or, for a copula, the complement it hands the argument to, and for
    a percent sign its figure ("90% of the production")."""
    figure = next((c for c in holder.children if _percent_sign(c)), None)
    if figure is not None:
        yield figure, role
        return
    if holder.lemma_ == "be" and holder.pos_ == "AUX":
        complement = next((c for c in holder.children if c.dep_ in ("attr", "acomp")), None)
        if complement is not None:
            yield complement, role
            return
    yield holder, role


def _role(dep: str) -> str:
    if dep in _SUBJ_DEPS:
        return SUBJ
    if dep in _OBJ_DEPS:
        return OBJ
    if dep in ("amod", "advmod", "npadvmod", "quantmod", "nummod", "compound", "nmod"):
        return "mod"
    if dep == "poss":
        return "poss"
    if dep == "appos":
        return "appos"
    return "comp"  # acl, relcl, advcl, xcomp, ccomp, pcomp, prep...


def relative_arcs(doc: Doc | Span) -> Iterable[tuple[int, str, int]]:
    """(verb, role, noun) of relative clauses and participles: "the community, which built
    Abilene" gives the community as the subject of built; "the dynasty, founded in 1368", the
    dynasty as the object of founded (token indices relative to the span)."""
    tokens = list(doc)
    start = tokens[0].i if tokens else 0
    for t in tokens:
        if t.dep_ == "acl" and t.tag_ in ("VBN", "VBG"):
            if t.head.dep_ == "ROOT" and t.head.pos_ in ("NOUN", "PROPN"):
                continue  # "Tymnet users typically connected via …": the main verb, misread
            role = OBJ if t.tag_ == "VBN" else SUBJ
            if not any(c.dep_ in (_SUBJ_DEPS | _OBJ_DEPS) for c in t.children):
                yield t.i - start, role, t.head.i - start
            continue
        if t.dep_ != "relcl":
            continue
        for c in t.children:
            if c.lower_ in en.RELATIVE_PRONOUNS:
                role = SUBJ if c.dep_ in _SUBJ_DEPS else OBJ if c.dep_ in _OBJ_DEPS else ""
                if role:
                    yield t.i - start, role, _antecedent(t.head, c).i - start


def _antecedent(noun: Token, pronoun: Token) -> Token:
    """The noun a relative "who" stands for: the parse's, unless that noun ends an appositive
    the pronoun follows ("It was Marin, the commander of the French forces, who invited …":
    Marin, not the forces)."""
    if pronoun.lower_ != "who" or pronoun.i < 2 or pronoun.doc[pronoun.i - 1].text != ",":
        return noun
    for a in (noun, *noun.ancestors):
        if a.dep_ == "appos":
            ends = max(x.i for x in a.subtree if x.i < pronoun.i - 1)
            return a.head if ends == pronoun.i - 2 else noun
    return noun


def shared_subject_arcs(doc: Doc | Span) -> Iterable[tuple[int, str, int]]:
    """(verb, role, noun) of a verb that shares another's subject: a verb conjoined to another
    without a subject of its own ("The community built Abilene and was a prime investor in
    NLR": the community is the investor too, the copula's complement), and a participle
    opening an adverbial clause ("Chrysler ended production, moving to front-wheel drive":
    Chrysler moved; "Founded in 1368, the dynasty ruled …": the dynasty was founded, the
    object of a past participle). A perfect participle after another ("having succeeded …, and
    having recanted …") shares that one's subject, wherever the parser hung it. Indices
    relative to the span."""
    tokens = list(doc)
    start = tokens[0].i if tokens else 0
    inside = {t.i for t in tokens}
    for t in tokens:
        if t.pos_ not in ("VERB", "AUX") or t.head.pos_ not in ("VERB", "AUX"):
            continue
        if any(c.dep_ in _SUBJ_DEPS | {"nsubjpass", "csubjpass", "expl"} for c in t.children):
            continue
        if t.dep_ == "conj":
            first, role = _parallel_participle(t, tokens) or _first_conjunct(t), SUBJ
            if _passive_pair(first, t):  # "approved by Maria and paid by the team": the
                for holder, held in _resolved(t, OBJ):  # invoice was paid too
                    for subject in (c for c in first.children if c.dep_ == "nsubjpass"):
                        if subject.i in inside:
                            yield holder.i - start, held, subject.i - start
                continue
        elif t.dep_ == "advcl" and t.tag_ in ("VBG", "VBN"):
            if t.lower_ in en.PREPOSITIONAL_PARTICIPLES:
                continue
            passive = t.tag_ == "VBN" and not any(c.lemma_ == "have" for c in t.children)
            first, role = t.head, OBJ if passive else SUBJ
        else:
            continue
        subjects = [c for c in first.children if c.dep_ in _SUBJ_DEPS and c.i in inside]
        for holder, held in _resolved(t, role):
            for subject in subjects:
                yield holder.i - start, held, subject.i - start


def _passive_pair(first: Token, t: Token) -> bool:
    """Whether ``t``, a participle conjoined to the passive verb ``first`` without an
    auxiliary of its own, continues it as a passive ("The invoice was approved by Maria and
    paid by the team"): its subject is then the thing done to, ``first``'s passive subject."""
    return (
        t.tag_ == "VBN"
        and any(c.dep_ == "nsubjpass" for c in first.children)
        and not any(c.dep_ in ("aux", "auxpass") for c in t.children)
    )


def reading(doc: Doc | Span) -> Reading:
    """``read``, with the relative clauses' nouns put in their pronouns' slots and a shared
    subject given to each verb that shares it."""
    out = read(doc)
    by_i = {w.i: w for w in out.words}
    for verb, role, noun in [*relative_arcs(doc), *shared_subject_arcs(doc)]:
        if verb in by_i and noun in by_i:
            out.arcs.append(Arc(by_i[verb], role, by_i[noun]))
    return out


@functools.lru_cache(maxsize=8192)
def _cached_reading(text: str) -> Reading | None:
    from app.core.verdict.parse import parse

    doc = parse(text)
    return reading(doc) if doc is not None else None


def read_text(text: str) -> Reading | None:
    """The reading of ``text`` parsed as one sentence (cached), or None without a parser.

    A Markdown link is its words. Runs of white space are one space: the blanks left where
    Markdown was taken out ("the session's  starting directory ,") would parse as words of
    their own, and a blank before a stop or comma changes how the words before it are read.
    A figure spelled in two words ("forty-five") is read as its digits, as the passage may
    write it."""
    text = en.spelled_figures(link_words(text))  # "[Preflight](https://…)": the words
    return _cached_reading(_BLANK_BEFORE_STOP.sub(r"\1", " ".join(text.split())))


def lead_name(text: str) -> str | None:
    """The sentence's first word as written, when the parser reads it as a name of one word
    and the sentence's subject ("Maria paid the invoice"). The word checks (``facts``) cannot
    tell a name from any word capitalised because it starts a sentence, so without this a
    claim's subject, which most often comes first, would never be asked for in the passage."""
    reading = read_text(text)
    if reading is None:
        return None
    first = min(reading.words, key=lambda w: w.i, default=None)
    if first is None or first.kind != "name" or " " in first.text:
        return None
    if _IDENTIFIER.search(first.text):
        return None  # "`Devise::TestHelpers` …": code, which the inline-code check reads
    if any(first.key in w.parts for w in reading.words if w is not first):
        return None  # "Donald" of "Donald Davies": the whole name is read as one
    if not any(a.dep is first and a.role == SUBJ for a in reading.arcs):
        return None  # only a subject: "**Special provisions**:" modifies a noun
    opening = text.lstrip(" *_#>-•\"'“(")
    if not opening.startswith(first.text) or _a_verb_in_lower_case(opening, first.text):
        return None
    return first.text


def _a_verb_in_lower_case(text: str, word: str) -> bool:
    """Whether ``text``, which opens with ``word``, parses as opening with a verb once the
    word is written in lower case: "Use visudo rather than …" is an instruction, which the
    parser may read as a name when its word is capitalised ("maria paid" stays a name)."""
    from app.core.verdict.parse import parse

    doc = parse(" ".join((word.lower() + text[len(word) :]).split()))
    return doc is not None and len(doc) > 0 and doc[0].pos_ in ("VERB", "AUX")


def main_clauses(text: str) -> list[str]:
    """``text`` cut into its main clauses where a comma and a conjunction join two, each with
    a subject of its own: "The dividend was $0.55, and the company has paid one every quarter"
    is two statements, which a passage may make in two sentences. A clause whose subject is a
    pronoun ("…, and he esteemed only the Sakya sect") stays joined: read alone, its pronoun
    could stand for anyone. Without a parser, or with no such join, ``[text]``."""
    from app.core.verdict.parse import parse

    doc = parse(text)
    if doc is None:
        return [text]
    cuts: list[tuple[int, int]] = []
    for t in doc:
        if t.dep_ != "conj" or t.pos_ not in ("VERB", "AUX") or t.head.dep_ != "ROOT":
            continue
        subject = next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None or subject.tag_ in ("PRP", "WP", "EX"):
            continue
        start = subject.left_edge.i
        joint = doc[start - 1] if start >= 2 else None
        if joint is None or joint.dep_ != "cc" or doc[start - 2].text != ",":
            continue
        cuts.append((doc[start - 2].idx, doc[start].idx))
    parts, prev = [], 0
    for comma, begin in cuts:
        parts.append(text[prev:comma])
        prev = begin
    return [*parts, text[prev:]]


_BLANK_BEFORE_STOP = re.compile(r" ([.,;:!?)\]])")
