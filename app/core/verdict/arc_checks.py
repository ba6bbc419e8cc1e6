"""The rows of the check table that read what a sentence asserts: the parse's arcs.

Who did what to whom, which name or figure fills which slot of which word, and what is
negated (``attest``, ``relations``). They need the English parser; ``checks.CHECKS`` lists
them in their place among the other rows. The rows that read a claim against the premise of
the question it answers are in ``premise_checks``.
"""

from __future__ import annotations

from app.core.verdict.rows import Check, Effect, Example

_E = Example
ARC_CHECKS: tuple[Check, ...] = (
    Check(
        "role",
        "the claim's words in the passage, but in swapped roles (who did what to whom); a verb "
        "used without an object ('file marks persist') says of its subject what the passive "
        "says of its object ('marks are persisted')",
        "in the passage Rollo is the subject of 'swore', not 'to …' of it",
        Effect.FLAGS,
        "en",
        (
            _E("Charles swore fealty to Rollo [1].", "Rollo swore fealty to Charles.", "flagged"),
            _E(
                "England conquered the Normans in 1066 [1].",
                "England was conquered by the Normans in 1066.",
                "flagged",
            ),
            _E(  # an agent on an active verb is the parse's slip: "by" is a preposition
                "Norman mercenaries had first been encouraged to come south by the Lombards "
                "to act against the Byzantines [1].",
                "Norman mercenaries were first encouraged to come to the south by the "
                "Lombards to act against the Byzantines.",
                "backed",
            ),
            _E(  # a verb whose subject and object may change places
                "Britain fought France in the Seven Years' War [1].",
                "France fought Britain in the Seven Years' War.",
                "backed",
            ),
            _E(  # one argument: nothing to swap
                "Written to the viminfo file, file marks persist across Vim sessions [1].",
                "File marks are written to the viminfo file. This means that your file marks "
                "are persisted across vim sessions.",
                "backed",
            ),
        ),
    ),
    Check(
        "swap",
        "the claim's two arguments of one word exchanged, the passage holding each in the "
        "other's role (no arc of the claim is attested, so only a sentence holding the "
        "exchange counts as about it)",
        "in the passage Bob is 'to …' of 'reports', not the subject of it",
        Effect.FLAGS,
        "en",
        (
            _E("The dog chased the cat [1].", "The cat chased the dog.", "flagged"),
            _E(
                "Bob reports to Alice [1].",
                "Alice reports to Bob, who runs the data team.",
                "flagged",
            ),
            _E(  # one argument only in another role is no exchange
                "The cat was chased [1].", "The cat chased the dog.", "backed"
            ),
        ),
    ),
    Check(
        "filler",
        "the same slot of the same word filled by another name in the passage (or by a noun "
        "the passage names beside it: “a member of his team (Roger Scantlebury)”)",
        "the passage gives Chrysler the subject of 'ended', not Dodge",
        Effect.FLAGS,
        "en",
        (
            _E(
                "In 1981 production was ended by Dodge [1].",
                "In 1981 production was ended by Chrysler. Dodge kept its Diplomat.",
                "flagged",
            ),
            _E(
                "Donald Davies met Lawrence Roberts at the symposium [1].",
                "A member of Davies' team (Roger Scantlebury) met Lawrence Roberts at the "
                "symposium.",
                "flagged",
            ),
            _E(
                "Roger Scantlebury met Lawrence Roberts at the symposium [1].",
                "A member of Davies' team (Roger Scantlebury) met Lawrence Roberts at the "
                "symposium.",
                "backed",
            ),
            _E(  # code names one thing; a linked version's address is no table of figures
                "`Devise::Test::ControllerHelpers` was deprecated as of Devise 4.2.0+ [1].",
                "As of [Devise 4.2.0+](https://github.com/heartcombo/devise/blob/master/"
                "CHANGELOG.md#420---2016-07-01), the `Devise::TestHelpers` have been "
                "deprecated. The `Devise::Test::ControllerHelpers` module should instead be "
                "included.",
                "flagged",
            ),
            _E(  # a title two people share makes them no one person
                "Dr Khan referred the patient to Dr Patel [1].",
                "Dr Patel referred the patient to Dr Khan.",
                "flagged",
            ),
            _E(  # the claim's name set beside the passage's title: one filler
                "Otto Brandt is a descendant of the family, as is Anna Roth, the Federal "
                "Minister of Works [1].",
                "Otto Brandt is also a descendant of the family, as is the Federal Minister "
                "of Works, Anna Roth.",
                "backed",
            ),
        ),
    ),
    Check(
        "slot_figure",
        "the same slot of the same word given another figure in the passage (a date: any "
        "of 'in', 'after', 'from … to' … of the word; a year the parse hangs on a verb's "
        "object dates the verb, as does a day's year: 'On November 28, 1995, … signed'; a "
        "figure or a range in brackets beside a word), or a name the "
        "claim hangs on a figure hung on another figure, unless the claim gives it that "
        "figure too",
        "the passage gives 1830 'in …' of 'took', not 1850",
        Effect.FLAGS,
        "en",
        (
            _E(  # the year of the day the passage gives, where its 1974 is another thing's
                "The National Highway Designation Act was signed in 1974 [1].",
                "The speed limit was set in 1974. On November 28, 1995, Bill Clinton signed "
                "the National Highway Designation Act.",
                "flagged",
            ),
            _E(
                "France took control of Algeria in 1850 [1].",
                "France took control of Algeria in 1830 and began to rebuild its empire "
                "after 1850.",
                "flagged",
            ),
            _E(
                "After 1971 the price of oil rose by two percent a year [1].",
                "After 1971, OPEC was slow to readjust prices. From 1947 to 1967, the price "
                "of oil had risen by two percent a year.",
                "flagged",
            ),
            _E(
                "Nixon named William E. Simon as the first Administrator of the Energy Office "
                "in 1974 [1].",
                "In 1973, Nixon named William E. Simon as the first Administrator of the Energy "
                "Office, a short-term body created to coordinate the response. Simon allocated "
                "states the same amount of oil for 1974.",
                "flagged",
            ),
            _E(
                "So the answer depends on the theater: six years of fighting in North America, "
                "seven years in Europe [1].",
                "The name Seven Years' War comes from the war in Europe, from 1756 to 1763. In "
                "North America the fighting lasted six years, from 1754 to 1760.",
                "backed",
            ),
            _E(  # a figure in brackets beside its word
                "The most frequently reported problems involved anxiety or depression (7.6%) [1].",
                "The most frequently reported problems involved pain or discomfort (7.6%) and "
                "anxiety or depression (8.8%).",
                "flagged",
            ),
            _E(  # a range in brackets is one figure, compared whole
                "During the 20th century, historians John Gallagher (1920–1980) and Ronald "
                "Robinson (1919–1999) constructed a framework for understanding imperialism [1].",
                "During the 20th century, historians John Gallagher (1919–1980) and Ronald "
                "Robinson (1920–1999) constructed a framework for understanding imperialism.",
                "flagged",
            ),
            _E(  # a range is read whole, with its century ("1883–84" is 1883 to 1884)
                "In 1883–84 Germany started to build a colonial empire in Africa [1].",
                "However, in 1883–84 Germany began to build a colonial empire in Africa and the "
                "South Pacific.",
                "backed",
            ),
            _E(  # a name hung on a figure
                "The prevalence of poor health was 8% in Czechs [1].",
                "The prevalence of poor health varied between 19% in Czechs and 8% in Hungarians.",
                "flagged",
            ),
            _E(  # a percentage holds its sign's slot; a near copy with its figure changed
                "The company's market share in Europe fell to 25% during 2020 [1].",
                "The company's market share in Europe fell to 18% during 2020, while the share "
                "held by its main rival grew to 25% over the same period.",
                "flagged",
            ),
            _E(  # a range spelled "from … to …" is one figure, whichever end the parse reads
                "Estimates of how many settlers moved to the coastal towns range from 20,000 "
                "to 60,000 [1].",
                "After the war, settlers (with estimates ranging from 20,000 to 60,000) moved "
                "to the coastal towns.",
                "backed",
            ),
        ),
    ),
    Check(
        "taken",
        "a name, or a counted word, of the claim the subject or object of one word in the "
        "passage, which gives the claim's word that slot filled by something else (a near "
        "copy too: a dropped clause may leave it another subject)",
        "in the passage 'Huguenots' is the subject of 'fled', and 'killed' has another",
        Effect.FLAGS,
        "en",
        (
            _E(  # a cleft with an appositive: "who" stands for Marin, not the forces
                "It was Marin, the commander of the French forces, who invited Washington to "
                "dine with him [1].",
                "Jacques Legardeur de Saint-Pierre, who succeeded Marin as commander of the "
                "French forces after the latter died on October 29, invited Washington to dine "
                "with him.",
                "flagged",
            ),
            _E(  # a passive continued by a participle shares its subject: the invoice paid
                "The invoice was paid by Maria [1].",
                "The invoice was approved by Maria and paid by the finance team.",
                "flagged",
            ),
            _E(
                "Roughly 500,000 Huguenots were killed [1].",
                "While three-quarters were killed or submitted, roughly 500,000 Huguenots had "
                "fled France by the early 18th century.",
                "flagged",
            ),
            _E(
                "The US left the Gold Exchange Standard in 1971 [1].",
                "In 1971 the US abandoned the Gold Exchange Standard, and the value of the "
                "dollar was left to float.",
                "backed",
            ),
            _E(
                "Abilene was a prime investor in the National LambdaRail project [1].",
                "The Internet2 community built the first network, called Abilene, in 1998 and "
                "was a prime investor in the National LambdaRail project.",
                "flagged",
            ),
            _E(
                "About 30% of the annual budget goes to staff salaries [1].",
                "About 60% of the annual budget goes to staff salaries, and about 30% of it "
                "pays the rent on the offices.",
                "flagged",
            ),
        ),
    ),
    Check(
        "apart",
        "two names or figures the claim gives one word, which the passage gives each to "
        "another instance of the word (another sentence, another clause), never together; "
        "or a figure and the word's subject or object, given apart within one sentence",
        "the passage gives 16 and Liberal Democrats to different 'seats', not to one",
        Effect.FLAGS,
        "en",
        (
            _E(
                "The SNP took 16 seats from the Liberal Democrats [1].",
                "The SNP took 16 seats from Labour. The SNP took a further eight seats from "
                "the Liberal Democrats.",
                "flagged",
            ),
            _E(
                "The SNP took 16 seats from Labour [1].",
                "The SNP took 16 seats from Labour. The SNP took a further eight seats from "
                "the Liberal Democrats.",
                "backed",
            ),
            _E(  # a figure and a subject, within one sentence
                "Across 2021 product sales rose 5% [1].",
                "Across the whole of 2021 our product sales rose 12% while the operating costs "
                "of the plant rose 5%.",
                "flagged",
            ),
            _E(
                "Across 2021 product sales rose 12% [1].",
                "Across the whole of 2021 our product sales rose 12% while the operating costs "
                "of the plant rose 5%.",
                "backed",
            ),
            _E(  # a subject and an object, common nouns, within one sentence
                "The landlord pays the utilities [1].",
                "The landlord pays for repairs; the tenant pays the utilities.",
                "flagged",
            ),
            _E(
                "The tenant pays the utilities [1].",
                "The landlord pays for repairs; the tenant pays the utilities.",
                "backed",
            ),
        ),
    ),
    Check(
        "other_kind",
        "a figure the claim says of a noun with one modifier, which the passage says of the "
        "same noun with another modifier in the figure's clause, giving the claim's modifier "
        "to another instance of the noun elsewhere ('gas turbines' for the passage's 'steam "
        "turbines')",
        "the passage gives 60 to petrol trucks, not to diesel trucks",
        Effect.FLAGS,
        "en",
        (
            _E(
                "In 2010 diesel trucks made up 60% of the fleet [1].",
                "In 2010 about 60% of the fleet was made up of petrol trucks, though the later "
                "purchase of many diesel truck models cut this share to 45% for petrol trucks.",
                "flagged",
            ),
            _E(
                "In 2010 petrol trucks made up 60% of the fleet [1].",
                "In 2010 about 60% of the fleet was made up of petrol trucks, though the later "
                "purchase of many diesel truck models cut this share to 45% for petrol trucks.",
                "backed",
            ),
        ),
    ),
    Check(
        "merged",
        "two things a passage sentence lists side by side in one slot of one word, made one "
        "by the claim, the one a modifier of the other ('a 10BASE5 radio' for 'such as radio "
        "or 10BASE5')",
        "the passage lists 'fibre' and 'copper' side by side, not a 'fibre copper'",
        Effect.FLAGS,
        "en",
        (
            _E(
                "A fibre copper cable is a wired medium, so the signal travels at nearly the "
                "speed of light [1].",
                "Over a wired medium (such as copper or fibre), the signal travels at nearly the "
                "speed of light.",
                "flagged",
            ),
            _E(
                "Over copper or fibre, both wired media, the signal travels at nearly the speed "
                "of light [1].",
                "Over a wired medium (such as copper or fibre), the signal travels at nearly the "
                "speed of light.",
                "backed",
            ),
        ),
    ),
    Check(
        "in_relation",
        "a claim taking a name or figure from another sentence of its passage than the one "
        "closest to it, every arc holding a name or figure from elsewhere attested there, none "
        "contradicted",
        "matches [1]",
        Effect.BACKS,
        "en",
        (
            _E(
                "It was Anna Weber (Countess Lindau), whose father was a Swiss clockmaker [1].",
                "The family kept its estates whole until the time of Anna Weber, whose father "
                "was a Swiss clockmaker. The house was sold twice in the next century. Some "
                "heirs still lived on the farm. A later patron of the arts was Anna Weber "
                "(Countess Lindau), who wrote plays and painted.",
                "backed",
            ),
            _E(  # 1820 and Grey from the closest sentence ("erected"), 1931 from another
                "The mill, built in 1820 by Thomas Grey, closed in 1931 [1].",
                "Thomas Grey had the mill erected on the river in 1820. It employed two "
                "hundred people at its height. The mill closed in 1931 after the flood.",
                "backed",
            ),
        ),
    ),
    Check(
        "own_verb",
        "a claim's verb the passage words otherwise is taken as attested through its "
        "arguments only where no passage sentence uses the claim's own verb; where one does, "
        "that sentence decides (another filler in the slot contradicts the claim)",
        "the passage gives Rollo the subject of 'founded', not Charles",
        Effect.FLAGS,
        "en",
        (
            _E(
                "The abbey was founded by Charles [1].",
                "The abbey was founded by Rollo. The town grew around it. Charles later "
                "visited the abbey.",
                "flagged",
            ),
            _E(
                "Many Acadians ended up in New Orleans [1].",
                "Many Acadians went to New Orleans, which they expected to remain French.",
                "backed",
            ),
        ),
    ),
    Check(
        "figure_elsewhere",
        "a figure and the word it belongs to in one passage sentence, the figure attached "
        "to another word (not a figure in brackets, which the parse hangs anywhere)",
        "the passage gives 1850, but not for 'took'",
        Effect.FLAGS,
        "en",
        (
            _E(
                "The company employs 4,500 people [1].",
                "The company, founded by 4,500 shareholders, employs people in Ohio.",
                "flagged",
            ),
            _E(  # a figure in brackets hangs wherever the parse puts the brackets
                "According to the study, albumin-bound estradiol (E2), a marker of the "
                "bioavailable fraction, also remained an important risk factor after adjustment "
                "was made for other factors (OR = 2.0; 95% CI = 1.0-3.9) [1].",
                "Albumin-bound estradiol (E2), a marker of the bioavailable fraction, also "
                "remained an important risk factor after adjustment was made for other factors "
                "(OR = 2.0; 95% CI = 1.0-3.9).",
                "backed",
            ),
        ),
    ),
    Check(
        "order",
        "two things the claim puts in one order ('A followed B', 'A came before B') that a "
        "passage sentence puts in the other ('A precedes B'), and none in the claim's, or "
        "that the passage dates the other way round ('A … in 1889', 'B … in 1886')",
        "the passage puts Norman architecture before the Early Gothic period",
        Effect.FLAGS,
        "en",
        (
            _E(
                "In England, Norman architecture followed the Early Gothic period [1].",
                "In England, the period of Norman architecture immediately succeeds that of "
                "the Anglo-Saxon and precedes the Early Gothic.",
                "flagged",
            ),
            _E(
                "In England, Norman architecture came before the Early Gothic period [1].",
                "In England, the period of Norman architecture immediately succeeds that of "
                "the Anglo-Saxon and precedes the Early Gothic.",
                "backed",
            ),
            _E(
                "The tower was completed before the Statue of Liberty was dedicated [1].",
                "The tower was completed in 1889. The Statue of Liberty was dedicated in 1886.",
                "flagged",
            ),
        ),
    ),
    Check(
        "arc_negation",
        "the word the claim's arcs hang from negated in the passage and not in the claim, "
        "or the reverse; so too a noun the claim sets against another ('rather than') that the "
        "passage affirms, and a verb that holds none of the claim's attested arcs ('it has been "
        "proven that …') where the sentences about the claim negate it",
        "the passage says the opposite ('not' about 'elected')",
        Effect.FLAGS,
        "en",
        (
            _E(
                "The plan was adopted by the committee [1].",
                "The plan, which the committee had debated for months, was never adopted.",
                "flagged",
            ),
            _E(  # "not only" denies nothing: they, and more
                "It is not only the old bridges that need repair: the new tunnel needs it too [1].",
                "The old bridges need repair, and so does the new tunnel.",
                "backed",
            ),
            _E(
                "Vaccination works because it exploits the specificity of the immune system "
                "rather than its inducibility [1].",
                "Vaccination is successful because it exploits the natural specificity of the "
                "immune system, as well as its inducibility.",
                "flagged",
            ),
            _E(
                "According to [1], it has been proven that NP is not equal to co-NP.",
                "It is believed that NP is not equal to co-NP; however, it has not yet been "
                "proven.",
                "flagged",
            ),
            _E(  # "stop" denies the verb it governs, as "prevented from" does
                "Smartphone instances stop responding to ring [1].",
                "Instances of Smartphone have been prevented from responding to ring.",
                "backed",
            ),
            _E(  # "stops a file from showing": the parse hangs "from" on the object
                "Adding it there stops the notes file from showing up as untracked [1].",
                "Once I've added that line, the notes file will no longer show up as an "
                "untracked file.",
                "backed",
            ),
            _E(  # "no longer" denies the verb it modifies
                "After that, swiping won't trigger navigation in Chrome [1].",
                "Restart Chrome. The swipe navigation will no longer be triggered.",
                "backed",
            ),
            _E(  # one "not", on the word here and on its noun there
                "Labour isn't covered by the warranty, only parts [1].",
                "The warranty covers parts but not labour.",
                "backed",
            ),
            _E(
                "The company did not pay dividends in 2020 [1].",
                "The company paid no dividends in 2020.",
                "backed",
            ),
            _E(  # both deny the same noun
                "The engines burned coal rather than wood [1].",
                "The engines burned coal rather than wood.",
                "backed",
            ),
        ),
    ),
)
