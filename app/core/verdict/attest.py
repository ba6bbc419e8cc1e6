"""Whether passage sentences contradict what a claim asserts: roles, slots, figures, negation.

A claim (``relations.Reading``) is compared with a pool of passage sentences, the sentences of
the sources it cites (or of every source). Each of its arcs is looked for in every sentence:

- it is **attested** where a sentence links the same two words by a compatible role, holds the
  arc reversed (a modifier written as a clause), or keeps the two words close in its tree
  (``relations.MAX_HOPS``) with no arc that links them otherwise, nor another name or figure
  in the same slot, nor another word in the subject or object slot while the claim's word
  fills one of another word (``_taken``); a verb the passage words differently is attested
  through its arguments, when two of them fill the same roles of one passage verb, unless a
  passage sentence uses the claim's own verb: then that sentence decides (``own_verb``);
- it is **contradicted**, only where no sentence attests it, when a sentence about the claim
  (one that attests another of its arcs) holds the same words in conflicting roles (the
  subject made the one something is done to: ``role``), or fills the same slot of the same
  word with another name (``filler``) or figure (``slot_figure``; a date fills one slot of a
  word, whatever its preposition), or holds the figure and its word but attaches the figure to
  another word (``figure_elsewhere``), or gives a counted word of the claim a slot of another
  word while the claim's word has that slot filled otherwise (``taken``), or gives the claim's
  figure to another kind of its noun ("steam turbines" for "gas turbines": ``other_kind``), or
  makes one thing of two the passage lists side by side ("a 10BASE5 radio": ``merged``); an
  attested arc is contradicted when every sentence attesting it negates the word the claim
  affirms, or the reverse (``arc_negation``): the word it hangs from, or the noun it ends in,
  which the claim may deny by setting it against another ("rather than its inducibility"); and
  so is a verb that holds none of the claim's attested arcs ("it has been proven that …"), by
  the sentences about the claim.

What a passage says elsewhere in another sentence is no contradiction: passages state several
things. ``unattested`` lists the arcs giving a word a name or figure that no sentence attests
(a pronoun in the slot leaves one open), for the check of a question's premise. Arcs that are
neither attested nor contradicted are left to the word checks (a claim may say a thing in
other words than its passage).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.text import stem
from app.core.verdict import figures
from app.core.verdict.checks import Finding, on
from app.core.verdict.dated import EVENT_YEAR
from app.core.verdict.lang import en
from app.core.verdict.relations import CORE, MAX_HOPS, OBJ, SUBJ, Arc, Reading, Word, same

# Roles that say who acted on whom: a filler moved between two of them changes the claim.
_AGENTIVE_PREPS = frozenset({"prep:to", "prep:by", "prep:against", "prep:from"})
_ARGUMENTS = CORE | _AGENTIVE_PREPS
# Slots a name or a figure fills: one filler excludes another.
_SLOTS = _ARGUMENTS | {"prep:in", "prep:on", "prep:at", "prep:toward", "prep:towards", "prep:into"}
# The slot a date fills: "in 1830", "after 1971" and "from 1947 to 1967" say when one thing was.
_WHEN = frozenset(
    f"prep:{p}" for p in ("in", "on", "at", "after", "before", "since", "from", "to", "until")
) | {"prep:during", "prep:by"}
# Words whose slots a claim can fill wrongly: what is done, and the things it is done to.
_PREDICATES = frozenset({"verb", "noun"})


def contradictions(claim: Reading, pool: Sequence[Reading]) -> list[Finding]:
    """How the sentences of ``pool`` contradict the arcs of ``claim`` (see the module)."""
    attested: dict[int, list[Reading]] = {}
    where: dict[int, dict[int, set[int]]] = {}  # arc -> sentence -> the words attesting it
    paraphrased: set[int] = set()
    objects = _objects(claim.arcs)
    for k, s in enumerate(pool):
        for n in _paraphrased(claim, s):
            attested.setdefault(n, []).append(s)
            paraphrased.add(n)
        for n, arc in enumerate(claim.arcs):
            at = _linked_at(arc, s, objects)
            if at:
                attested.setdefault(n, []).append(s)
                where.setdefault(n, {})[k] = at
    # A verb worded otherwise is attested through its arguments only where the passage does
    # not use the claim's own verb: "Charles visited the abbey" is no paraphrase of "the abbey
    # was founded by Charles" in a passage that says it was founded by Rollo.
    own_verb: set[int] = set()  # arcs whose paraphrase the passage's own verb overrules
    for n in paraphrased - set(where):
        if on("own_verb") and any(s.find(claim.arcs[n].head) for s in pool):
            del attested[n]
            own_verb.add(n)
    paraphrased &= set(attested)
    out: list[Finding] = _apart(claim, where, paraphrased)
    out += _other_kind(claim, pool)
    out += _merged(claim, pool)
    out += _bare_negation(claim, attested)
    muddled = _muddled(claim)
    for n, arc in enumerate(claim.arcs):
        if n in attested:
            linking = frozenset(  # only a subject's or object's link names its word
                (id(pool[k]), i)
                for k, idx in (where.get(n, {}) if arc.role in CORE else {}).items()
                for i in idx
            )
            partners = [a.dep for a in claim.arcs if a.head.i == arc.head.i and a is not arc]
            out += _negation(arc, attested[n], linking, partners)
            continue
        if arc.head.i in muddled:
            continue  # the parse gave this word two subjects: its roles say nothing
        # a sentence contradicts only when it is about the claim: it attests another of its
        # arcs ("Of the 129 MSPs, 73 ..." is not contradicted by "the number of MPs ...")
        about = [s for s in pool if any(s in got for m, got in attested.items() if m != n)]
        exchanged = not about and on("swap")  # "the dog chased the cat" against "the cat
        if exchanged:  # chased the dog": no arc attested, the sentence plainly about it
            about = [s for s in pool if _swapped(arc, claim, s)]
        # a counted word ("500,000 Huguenots were killed") that the passage gives another
        # word's slot, while the claim's word has that slot filled otherwise ("three-quarters
        # were killed … 500,000 Huguenots had fled"): the figure is the passage's, the claim not
        counted = any(
            a.head.i == arc.dep.i and a.role == "mod" and a.dep.kind == "number" for a in claim.arcs
        )
        siblings = [a for a in claim.arcs if a.head.i == arc.head.i and a.role in _SLOTS]
        found = _contradiction(arc, about, counted, siblings, claim.arcs)
        for verb in _event_of(arc, claim) if found is None else ():
            found = _contradiction(Arc(verb, arc.role, arc.dep), about, said=claim.arcs)
            if found is not None:
                break
        if found is not None and exchanged:
            found = Finding("swap", found.reason)
        if found is not None:
            out.append(Finding("own_verb", found.reason) if n in own_verb else found)
    return list(dict.fromkeys(f for f in out if on(f.check)))


def _event_of(arc: Arc, claim: Reading) -> list[Word]:
    """The verbs a year's noun is an argument of, when the year dates a noun: a date belongs to
    an event, and the parser may hang it on the verb's object ("named Simon as the first
    Administrator in 1974": the naming's year, read as the administrator's)."""
    if not (_year(arc.dep) and arc.role in _WHEN and arc.head.kind != "verb"):
        return []
    return [a.head for a in claim.arcs if a.dep.i == arc.head.i and a.head.kind == "verb"]


def unattested(claim: Reading, pool: Sequence[Reading]) -> list[Arc]:
    """The claim's arcs that give a word a name or a figure in one of its slots which no
    sentence of ``pool`` attests: the passage never says it of that word. A sentence whose
    pronoun fills that slot of the word ("he died in 1259") may say it of the name an earlier
    sentence gives, so it leaves the arc open, when the passage makes that name a subject or
    object somewhere (``_antecedent``)."""
    out = []
    paraphrased = set().union(*(_paraphrased(claim, s) for s in pool))
    for n, arc in enumerate(claim.arcs):
        # a name said to be another ("Hugues Capet was Protestant") is a slot too
        named = arc.head.kind == "name" and arc.role == SUBJ
        if not (arc.dep.specific and _slot(arc) and (arc.head.kind in _PREDICATES or named)):
            continue
        if n in paraphrased or any(linked(arc, s) for s in pool):
            continue
        pronoun = any((w.i, arc.role) in s.pronoun_slots for s in pool for w in s.find(arc.head))
        if pronoun and _antecedent(arc.dep, pool):
            continue
        out.append(arc)
    return out


def _antecedent(word: Word, pool: Sequence[Reading]) -> bool:
    """Whether a pronoun of ``pool`` may stand for ``word``: the passage makes it the subject
    or object of some word ("Möngke … He died in 1259"). A name the passage only mentions in
    passing ("other Islamists such as Muhammad Qutb") is not what its "it blames" is said of."""
    return any(a.role in CORE and same(a.dep, word) for s in pool for a in s.arcs)


def _apart(
    claim: Reading, where: dict[int, dict[int, set[int]]], paraphrased: set[int]
) -> list[Finding]:
    """A word the claim gives two names or figures ("took 16 seats from the Liberal
    Democrats") that the passage gives each to another instance of the word, never together
    ("took 16 seats from Labour … took eight seats from the Liberal Democrats"): each arc is
    attested, the claim is not.

    A figure and the word's subject or object are held so too ("sales rose 5%" against "sales
    rose 12% while costs rose 5%"), and so are the word's subject and object when both are
    common nouns ("the landlord pays the utilities" against "the landlord pays for repairs;
    the tenant pays the utilities"), but only within one sentence that says both: a subject
    that is a common noun is often named in another sentence than its figure, and said again
    by a pronoun."""
    by_head: dict[int, list[int]] = {}
    for n, arc in enumerate(claim.arcs):
        holder = arc.role in CORE and arc.dep.kind == "noun"  # a common noun's slot
        if (arc.dep.specific or holder) and _slot(arc) and n in where and n not in paraphrased:
            by_head.setdefault(arc.head.i, []).append(n)
    out: list[Finding] = []
    for held in by_head.values():
        ns = [n for n in held if claim.arcs[n].dep.specific]
        figure = len(ns) == 1 and claim.arcs[ns[0]].dep.kind == "number"
        common = not ns  # the word's subject and object, common nouns ("the landlord pays
        if figure or common:  # the utilities" where "the tenant pays the utilities")
            ns = held
        if len(ns) < 2:
            continue
        sentences = set.intersection(*(set(where[n]) for n in ns))
        if (figure or common) and not sentences:
            continue
        if any(set.intersection(*(where[n][k] for n in ns)) for k in sentences):
            continue
        first, second = claim.arcs[ns[0]], claim.arcs[ns[1]]
        out.append(
            Finding(
                "apart",
                f"the passage gives {_named(first.dep)} and {_named(second.dep)} to different "
                f"'{first.head.text}', not to one",
            )
        )
    return out


def _other_kind(claim: Reading, pool: Sequence[Reading]) -> list[Finding]:
    """A figure the claim says of a noun with one modifier ("gas turbines accounted for 90%")
    that a passage sentence says of the same noun with another modifier, in the figure's own
    clause ("90% … was by use of steam turbines"), while it gives the claim's modifier to
    another instance of the noun, in another clause ("large gas turbine units"): both kinds
    are the passage's, the figure is the other kind's.

    The figure's clause is the nearest verb above it in each tree; a sentence holding the
    claim's kind of the noun in that clause, too, says nothing against it."""
    out: list[Finding] = []
    telling = [w for w in claim.words if w.kind == "number" and _telling(w)]
    for mod in claim.arcs:
        noun = mod.head
        if not (mod.role == "mod" and noun.kind == "noun" and mod.dep.kind in ("noun", "adj")):
            continue
        for figure in (f for f in telling if claim.clause(f.i) == claim.clause(noun.i)):
            for s in pool:
                said = [w for w in s.words if w.kind == "number" and same(figure, w)]
                if len(said) != 1:
                    continue
                here = s.clause(said[0].i)
                instances = s.find(noun)
                near = [w for w in instances if s.clause(w.i) == here]
                far = [w for w in instances if s.clause(w.i) != here]
                kinds = {w.i: _modifiers(w, s) for w in near + far}
                others = {m.key for w in near for m in kinds[w.i] if m.kind == mod.dep.kind}
                if (
                    near
                    and not any(same(m, mod.dep) for w in near for m in kinds[w.i])
                    and others - {mod.dep.key}
                    and any(same(m, mod.dep) for w in far for m in kinds[w.i])
                ):
                    other = next(iter(sorted(others - {mod.dep.key})))
                    shown = next(m.text for w in near for m in kinds[w.i] if m.key == other)
                    out.append(
                        Finding(
                            "other_kind",
                            f"the passage gives {figure.text} to {shown} {noun.text}, not to "
                            f"{mod.dep.text} {noun.text}",
                        )
                    )
    return list(dict.fromkeys(out))


def _merged(claim: Reading, pool: Sequence[Reading]) -> list[Finding]:
    """Two things a passage sentence lists side by side, one slot of one word ("a shared
    medium, such as radio or 10BASE5"), that the claim makes one, the one a modifier of the
    other ("a 10BASE5 radio"), where no sentence puts them so."""
    out: list[Finding] = []
    # a word with a list of modifiers may be a list of nouns read as one ("electricity, coal
    # and nuclear energy"; "the notch and rounded corners"): no claim of one thing
    listing = {a.head.i for a in claim.arcs if a.role == "mod" and a.shared}
    for arc in claim.arcs:
        if not (arc.role == "mod" and all(_common_noun(w) for w in (arc.head, arc.dep))):
            continue
        if arc.head.i in listing or arc.head.i != arc.dep.i + 1 or same(arc.head, arc.dep):
            continue  # only a two-word compound of two words, "10BASE5 radio"
        written = f"{arc.dep.text}{arc.head.text}".lower()
        if any(_modifies(arc, s) or written in "".join(s.text.lower().split()) for s in pool):
            continue  # the passage's own words ("PI3K"), however its parse reads them
        for s in (s for s in pool if "`" not in s.text):  # prose: code lists no things
            by_slot: dict[tuple[int, str], list[Word]] = {}
            for a in s.arcs:
                by_slot.setdefault((a.head.i, a.role), []).append(a.dep)
            if any(
                any(same(arc.head, w) for w in members) and any(same(arc.dep, w) for w in members)
                for members in by_slot.values()
                if len(members) > 1
            ):
                out.append(
                    Finding(
                        "merged",
                        f"the passage lists '{arc.dep.text}' and '{arc.head.text}' side by "
                        f"side, not a '{arc.dep.text} {arc.head.text}'",
                    )
                )
                break
    return out


def _common_noun(w: Word) -> bool:
    """A common noun written as a word ("radio", "10BASE5"), not a name, a flag ("-u")."""
    return w.kind == "noun" and w.text.isalnum()


def _modifies(arc: Arc, s: Reading) -> bool:
    """Whether ``s`` sets the arc's modifier on its word, as the claim does."""
    return any(a.role == "mod" and same(a.head, arc.head) and same(a.dep, arc.dep) for a in s.arcs)


def _modifiers(word: Word, s: Reading) -> list[Word]:
    """The words ``s`` sets before ``word`` to say which kind of it: "steam turbines"."""
    return [a.dep for a in s.arcs if a.head.i == word.i and a.role == "mod"]


def _slot(arc: Arc) -> bool:
    """A slot a name or figure fills, of which a word has one: an argument, a place or time,
    a figure's count, a figure beside it in brackets ("pain (7.6%)")."""
    return arc.role in _SLOTS or (arc.role in ("mod", "appos") and arc.dep.kind == "number")


def _muddled(claim: Reading) -> set[int]:
    """Words the parse gave two subjects or two objects that are not one list ("Astronomy,
    medicine and diet in East Asia, the Muslims introduced …" read as five subjects): a
    fragment or a garbled sentence, whose roles prove nothing."""
    seen: dict[tuple[int, str], int] = {}
    for arc in claim.arcs:
        if arc.role in CORE and not arc.shared:
            key = (arc.head.i, arc.role)
            seen[key] = seen.get(key, 0) + 1
    return {i for (i, _), count in seen.items() if count > 1}


def compatible(a: str, b: str) -> bool:
    """Whether roles ``a`` and ``b`` can say the same thing: a conflict is only between two
    argument roles (subject, object, an agentive preposition) that differ."""
    return a == b or not (a in _ARGUMENTS and b in _ARGUMENTS)


def linked(arc: Arc, s: Reading) -> bool:
    """Whether sentence ``s`` attests ``arc``."""
    return bool(_linked_at(arc, s))


def _linked_at(arc: Arc, s: Reading, objects: frozenset[int] | None = None) -> set[int]:
    """The words of sentence ``s`` (their token indices) at which it attests ``arc``: the
    passage word that is the claim's head, or that holds the link the other way round.
    ``objects``, when given, are the claim's words that have an object (``_ergative``)."""
    at: set[int] = set()
    for other in s.arcs:
        if same(arc.head, other.head) and same(arc.dep, other.dep):
            if (
                compatible(arc.role, other.role)
                or _one_range(arc, other)
                or (objects is not None and _ergative(arc, other, s, objects))
            ):
                at.add(other.head.i)
        elif same(arc.head, other.dep) and same(arc.dep, other.head):
            at.add(other.dep.i)  # the same link written the other way round
    if at:
        return at
    heads, deps = s.find(arc.head), s.find(arc.dep)
    if not heads or not deps:
        return at
    if any(
        _conflicting(arc, other) or _competing(arc, other) or _taken(arc, other, s)
        for other in s.arcs
    ):
        return at
    return {h.i for h in heads for d in deps if h.i != d.i and s.hops(h.i, d.i) <= MAX_HOPS}


def _objects(arcs: Sequence[Arc]) -> frozenset[int]:
    """The words (token indices) that have an object among ``arcs``."""
    return frozenset(a.head.i for a in arcs if a.role == OBJ)


def _swapped(arc: Arc, claim: Reading, s: Reading) -> bool:
    """Whether sentence ``s`` holds ``arc``'s two words and those of another argument of the
    same claim word, each pair in roles that conflict: the claim's arguments exchanged ("Bob
    reports to Alice" against "Alice reports to Bob"). No arc of such a claim is attested, so
    no sentence would otherwise count as being about it; this one plainly is."""
    if arc.role not in _ARGUMENTS or not any(_conflicting(arc, o) for o in s.arcs):
        return False
    return any(
        a is not arc
        and a.head.i == arc.head.i
        and a.role in _ARGUMENTS
        and any(_conflicting(a, o) for o in s.arcs)
        for a in claim.arcs
    )


def _ergative(arc: Arc, other: Arc, s: Reading, objects: frozenset[int]) -> bool:
    """One thing the subject of a verb used without an object on one side ("file marks
    persist", "new windows open") and the object of the same verb on the other ("marks are
    persisted", "opening windows"): the same thing said of it, for with one argument there is
    nothing to swap. ``objects`` are the claim's words that have an object; a verb with both
    ("the Normans conquered England") keeps its roles."""
    if arc.role == SUBJ and other.role == OBJ:
        return arc.head.i not in objects
    if arc.role == OBJ and other.role == SUBJ:
        return not any(o.role == OBJ and o.head.i == other.head.i for o in s.arcs)
    return False


def _conflicting(arc: Arc, other: Arc) -> bool:
    """The same two words, linked by roles that cannot mean the same (a verb whose subject
    and object may change places, "France fought Britain", has none such between them)."""
    return (
        same(arc.head, other.head)
        and same(arc.dep, other.dep)
        and not compatible(arc.role, other.role)
        and not _one_range(arc, other)
        and not (arc.head.key in _SYMMETRIC and {arc.role, other.role} <= _MUTUAL)
    )


_SYMMETRIC = frozenset(stem(w) for w in en.SYMMETRIC_VERBS)
_MUTUAL = CORE | {"prep:with", "prep:against"}


def _same_slot(a: Arc, b: Arc) -> bool:
    """Whether two arcs of one word fill one slot: the same role, or, for a verb whose
    subject and object may change places, either of those ("Britain fought France": France
    is the one fought and the one fighting)."""
    return a.role == b.role or (b.head.key in _SYMMETRIC and {a.role, b.role} <= _MUTUAL)


_RANGE_ENDS = frozenset({"prep:from", "prep:to", "prep:between"})


def _one_range(arc: Arc, other: Arc) -> bool:
    """A figure the claim gives a range's end ("range from 200,000 to 1,000,000": "to …")
    that the other gives the whole range, in whichever end's slot ("from 200,000 to
    1,000,000", read as one range)."""
    ranged = figures.bounds(arc.dep.key) or figures.bounds(other.dep.key)
    return bool(ranged) and arc.role in _RANGE_ENDS and other.role in _RANGE_ENDS


def _competing(arc: Arc, other: Arc) -> bool:
    """Whether ``other`` fills ``arc``'s slot (same word, same role) with another name or
    figure: then the two words being close proves nothing ("took 16 seats from Labour and 8
    from the Liberal Democrats" does not say 16 came from the Liberal Democrats)."""
    return (
        arc.dep.specific
        and _slot(arc)
        and other.role == arc.role
        and same(arc.head, other.head)
        and other.dep.specific
        and not same(arc.dep, other.dep)
    )


def _taken(arc: Arc, other: Arc, s: Reading) -> bool:
    """Whether ``other`` fills ``arc``'s subject or object with another word while the claim's
    word is itself a subject or object of another word of ``s``: "three-quarters were killed
    or submitted, 500,000 Huguenots had fled" does not say the Huguenots were killed."""
    return (
        arc.role in CORE
        and other.role == arc.role
        and same(arc.head, other.head)
        and not same(arc.dep, other.dep)
        and any(
            o.role in CORE and same(o.dep, arc.dep) and not same(o.head, arc.head) for o in s.arcs
        )
    )


def _paraphrased(claim: Reading, s: Reading) -> set[int]:
    """Indices of claim arcs attested through a passage verb the claim words differently: two
    or more of one claim verb's arguments fill compatible roles of one verb of ``s``."""
    out: set[int] = set()
    by_head: dict[int, list[int]] = {}
    for n, arc in enumerate(claim.arcs):
        if arc.head.kind == "verb" and arc.role in _SLOTS:
            by_head.setdefault(arc.head.i, []).append(n)
    for ns in by_head.values():
        if len(ns) < 2 or s.find(claim.arcs[ns[0]].head):
            continue
        for verb in (w for w in s.words if w.kind == "verb"):
            hits = [
                n
                for n in ns
                if any(
                    other.head.i == verb.i
                    and same(claim.arcs[n].dep, other.dep)
                    and compatible(claim.arcs[n].role, other.role)
                    and other.role != "comp"
                    for other in s.arcs
                )
            ]
            if len(hits) >= 2:
                out.update(hits)
    return out


def _negation(
    arc: Arc,
    sentences: Sequence[Reading],
    linking: frozenset[tuple[int, int]] = frozenset(),
    partners: Sequence[Word] = (),
) -> list[Finding]:
    """A negation the claim adds to (or drops from) the word its arc hangs from, or the noun
    it ends in ("rather than its inducibility", "no troops"), where every sentence attesting
    the arc says the opposite. Where a sentence links a subject or object to its word itself,
    that word is the one read (``linking``: the sentence, the word's index): "precludes the need
    for a dedicated path, but … more information is needed" denies the path's need, whatever
    else it says is needed. (A looser link, a complement, may be the parse's: the sentence's
    every use of the word is read.)

    One "not" may stand on the word or on one of its nouns and say the same: "labour isn't
    covered by the warranty" for "the warranty covers parts but not labour", "the company did
    not pay dividends" for "paid no dividends". So a claim that negates the word or one of its
    nouns (the arc's, or ``partners``: the claim's other words of that word) agrees with a
    sentence that negates the word or one of those nouns, provided the sentence has the nouns
    the claim negates ("paid no bonuses" is not "did not pay dividends")."""
    linked_in = {s for s, _ in linking}
    nouns = [w for w in (arc.dep, *partners) if w.kind == "noun"]
    if arc.head.negated or any(n.negated for n in nouns):
        for s in sentences:  # a "not" on the word or on one of its nouns, here as there
            if not all(s.find_sense(n) for n in nouns if n.negated):
                continue  # "paid no bonuses" is not said by "did not pay dividends"
            if any(h.negated for h in s.find_sense(arc.head)) or any(
                d.negated for noun in nouns for d in s.find_sense(noun)
            ):
                return []
    for word in (arc.dep, arc.head) if arc.dep.kind == "noun" else (arc.head,):
        said = [
            w
            for s in sentences
            for w in s.find_sense(word)
            if word is not arc.head or id(s) not in linked_in or (id(s), w.i) in linking
        ]
        # a "not" the claim adds is read against its own word; a word of its sense then says
        # the same ("not allowed" against "one cat is allowed; dogs are not permitted")
        if word.negated and not any(same(word, w) for w in said):
            continue
        if not said or any(w.negated == word.negated for w in said):
            continue
        if word.negated:
            return [Finding("arc_negation", f"the passage does not say 'not' about '{word.text}'")]
        return [
            Finding("arc_negation", f"the passage says the opposite ('not' about '{word.text}')")
        ]
    return []


def _bare_negation(claim: Reading, attested: dict[int, list[Reading]]) -> list[Finding]:
    """A negation the claim drops from (or adds to) a verb that holds none of its attested
    arcs, where every sentence about the claim (one attesting an arc of it) that uses the verb
    says the opposite: "According to [1], it has been proven that NP is not equal to co-NP"
    against "It is believed that NP is not equal to co-NP; however, it has not yet been
    proven" (the proving is said of nothing the passage says it of, so no attested arc
    carries it to ``_negation``)."""
    held = {w.i for n in attested for w in (claim.arcs[n].head, claim.arcs[n].dep)}
    about = list({id(s): s for got in attested.values() for s in got}.values())
    out: list[Finding] = []
    for word in claim.words:
        if word.kind == "verb" and word.i not in held:
            out += _negation(Arc(word, "mod", word), about)
    return out


def _contradiction(
    arc: Arc,
    pool: Sequence[Reading],
    counted: bool = False,
    siblings: Sequence[Arc] = (),
    said: Sequence[Arc] = (),
) -> Finding | None:
    """A sentence holding ``arc``'s words in conflicting roles, its slot filled otherwise (a
    date: any of the word's dates), or its figure attached to another word; or, for a name or
    a ``counted`` word (one the claim gives a figure), the word given another word's slot
    while the claim's word has that slot filled otherwise (``taken``), unless that other word
    holds two of the claim's arguments of its word (``siblings``): then it is the claim's word
    said otherwise ("the US left the Gold Exchange Standard" for "the US abandoned" it, in a
    passage that says "left to float" of something else). A slot the passage fills otherwise
    is no contradiction where the claim (``said``: all its arcs) fills the same slot so too
    ("six years in North America, seven years in the European reckoning")."""
    for s in pool:
        for other in s.arcs:  # the claim's objects read only where roles conflict (rarely)
            if _conflicting(arc, other) and not _ergative(arc, other, s, _objects(said)):
                return Finding(
                    "role",
                    f"in the passage {_named(arc.dep)} is {_role_words(other.role)} "
                    f"'{other.head.text}', not {_role_words(arc.role)} it",
                )
    takes = arc.head.kind in _PREDICATES and (counted or arc.dep.specific)
    for s in pool if takes else ():
        for other in s.arcs:
            if _taken(arc, other, s):
                own = next(
                    o
                    for o in s.arcs
                    if o.role in CORE and same(o.dep, arc.dep) and not same(o.head, arc.head)
                )
                held = [
                    a
                    for a in siblings
                    if any(
                        o.head.i == own.head.i and same(a.dep, o.dep) and compatible(a.role, o.role)
                        for o in s.arcs
                    )
                ]
                # the claim's own verb in the passage holding another of the claim's
                # arguments ("approved by Maria and paid by the team", the invoice paid):
                # the passage says who did it, and another verb's two arguments do not
                # stand for it
                rival = any(
                    a is not arc
                    and any(
                        o.head.i == other.head.i
                        and same(a.dep, o.dep)
                        and compatible(a.role, o.role)
                        for o in s.arcs
                    )
                    for a in siblings
                )
                if len(held) >= 2 and not rival:
                    continue  # the passage's word for the claim's: a paraphrase
                return Finding(
                    "taken",
                    f"in the passage {_named(arc.dep)} is {_role_words(own.role)} "
                    f"'{own.head.text}', and '{arc.head.text}' has another",
                )
    if arc.head.kind == "number" and arc.dep.kind in ("name", "noun"):
        return _held_by_figure(arc, pool)
    # a figure in brackets beside a word ("Gallagher (1919–1980)", "pain (7.6%)") is its slot
    bracketed = arc.role == "appos" and arc.dep.kind == "number"
    if not arc.dep.specific or (arc.head.kind not in _PREDICATES and not bracketed):
        return None  # a name's own modifiers ("Maria de la Queillerie, wife of …") vary freely
    for s in pool:
        for other in s.arcs:
            if other.role != arc.role or not same(arc.head, other.head):
                continue
            named = _appositives(other.dep, s)
            if any(same(arc.dep, f) for f in named):
                continue  # "the Minister, Thomas de Maizière" fills it with the claim's name
            # an appositive flags only beside a filler of another kind: "a member of Davies'
            # team (Roger Scantlebury)"; a name's own ("Iraq (SCIRI)") is the same thing again
            fillers = (other.dep, *named) if other.dep.kind != arc.dep.kind else (other.dep,)
            for filler in fillers:
                if (
                    filler.kind == arc.dep.kind
                    and not same(arc.dep, filler)
                    and not any(
                        _same_slot(a, arc) and same(a.head, arc.head) and same(a.dep, filler)
                        for a in said
                    )
                ):
                    check = "slot_figure" if arc.dep.kind == "number" else "filler"
                    return Finding(
                        check,
                        f"the passage gives {_named(filler)} {_role_words(arc.role)} "
                        f"'{arc.head.text}', not {_named(arc.dep)}",
                    )
    if _year(arc.dep) and arc.role in _WHEN:
        for s in pool:
            dates = [
                d
                for w in s.find(arc.head)
                for o in s.arcs
                if o.head.i == w.i and o.role in _WHEN
                for d in (o.dep, *_years_of(o.dep, s))
                if _year(d)
            ]
            if dates and not any(same(arc.dep, d) for d in dates):
                return Finding(
                    "slot_figure",
                    f"the passage dates '{arc.head.text}' "
                    f"{' to '.join(d.text for d in dates)}, not {arc.dep.text}",
                )
    together = any(s.find(arc.dep) and s.find(arc.head) for s in pool)
    # but the parse hangs brackets anywhere ("(OR = 2.0; 95% CI = …)"): only another figure in
    # its slot contradicts a figure in brackets
    telling = arc.dep.kind == "number" and _telling(arc.dep) and not _year(arc.dep)
    if telling and together and not bracketed:
        return Finding(
            "figure_elsewhere",
            f"the passage gives {arc.dep.text}, but not for '{arc.head.text}'",
        )
    return None


def _held_by_figure(arc: Arc, pool: Sequence[Reading]) -> Finding | None:
    """A name the claim hangs on a figure ("8% in Hungary") that the passage hangs, by the
    same link, on another figure ("19% in Hungary and 8% in Poland")."""
    for s in pool:
        for other in s.arcs:
            if (
                other.role == arc.role
                and other.head.kind == "number"
                and same(arc.dep, other.dep)
                and not same(arc.head, other.head)
            ):
                return Finding(
                    "slot_figure",
                    f"the passage gives {other.head.text} for {_named(arc.dep)}, "
                    f"not {arc.head.text}",
                )
    return None


def _years_of(word: Word, s: Reading) -> list[Word]:
    """The years a month is given with in ``s`` ("On November 28, 1995": 1995 of
    'November'), which date what the month's word hangs from."""
    if word.kind != "name" or word.key not in _MONTH_KEYS:
        return []
    return [o.dep for o in s.arcs if o.head.i == word.i and o.role == "mod" and _year(o.dep)]


_MONTH_KEYS = frozenset(stem(m) for m in en.MONTHS)


def _appositives(word: Word, s: Reading) -> list[Word]:
    """The words ``s`` sets beside ``word`` to say who or what it is: "a member of Davies'
    team (Roger Scantlebury)" fills its slot with Roger Scantlebury. Read where the claim fills
    the slot with a name and the passage with a common noun; a name's own appositive ("Iraq
    (SCIRI)") is the same thing again."""
    return [a.dep for a in s.arcs if a.head.i == word.i and a.role == "appos"]


def _telling(figure: Word) -> bool:
    """A figure that says something on its own: not a one-digit count ("one type", "1-based")."""
    try:
        return abs(float(figure.key)) >= 10
    except ValueError:
        return False


def _year(figure: Word) -> bool:
    """A year ("1759"): a date hangs from whichever verb a paraphrase puts it on."""
    return EVENT_YEAR.fullmatch(figure.key) is not None


def _named(w: Word) -> str:
    return w.text if w.kind in ("name", "number") else f"'{w.text}'"


def _role_words(role: str) -> str:
    if role == SUBJ:
        return "the subject of"
    if role == "obj":
        return "the object of"
    if role.startswith("prep:"):
        return f"'{role[5:]} …' of"
    return "attached to"
