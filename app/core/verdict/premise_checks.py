"""The rows of the check table that read a claim against the question it answers.

Whether a sentence takes the question's premise for what its passages say: a word of the
question no passage holds, a name of the question given something no passage says of it, a
count or a year the question asks for given from another group or event (``premise``,
``attest.unattested``). They need the English parser; ``checks.CHECKS`` lists them after the
rows that read the parse's arcs (``arc_checks``).
"""

from __future__ import annotations

from app.core.verdict.rows import Check, Effect, Example

_E = Example
PREMISE_CHECKS: tuple[Check, ...] = (
    Check(
        "counted_other",
        "a count the claim gives for the named group a 'how many' question asks about, which "
        "the passage backing it counts in another named group the claim does not name, or "
        "counts bare, neither naming the question's group ('5,000 to 30,000 were killed')",
        "the passage counts 3,000 Protestants, not the question's group",
        Effect.FLAGS,
        "en",
        (
            _E(
                "Between about 2,000 and 3,000 were killed in Paris [1].",
                "During the massacre, between about 2,000 and 3,000 Protestants were killed "
                "in Paris by Catholic mobs.",
                "flagged",
                question="How many French Catholics died during the massacre?",
            ),
            _E(
                "Between about 2,000 and 3,000 Protestants were killed in Paris [1].",
                "During the massacre, between about 2,000 and 3,000 Protestants were killed "
                "in Paris by Catholic mobs.",
                "backed",
                question="How many Protestants died during the massacre?",
            ),
            _E(  # a bare count, of whom neither says
                "Between 400 and 900 were killed [1].",
                "The height of the unrest was the riot of 1831, when 400 to 900 were killed.",
                "flagged",
                question="How many Prussian soldiers died after the weavers retaliated?",
            ),
            _E(
                "Between 400 and 900 were killed [1].",
                "The height of the unrest was the riot of 1831, when 400 to 900 were killed.",
                "backed",
                question="How many people were killed in the riot of 1831?",
            ),
        ),
    ),
    Check(
        "undated",
        "a year the claim gives for the event a 'when' question asks about, where the sources "
        "tell of that event (its verb and subject) only without a year and give the claim's "
        "year only to something else",
        "the passages tell of the event the question asks about without a year, and give 1523 "
        "for something else",
        Effect.FLAGS,
        "en",
        (
            _E(
                "The Reformation reached France in 1523 [1].",
                "The Reformation finally arrived in France after long struggles with the "
                "papacy. Lefevre published his French translation of the New Testament in "
                "1523.",
                "flagged",
                question="In what year did the Reformation arrive in France?",
            ),
            _E(
                "The Reformation reached France in 1523 [1].",
                "The Reformation arrived in France in 1523, when Lefevre published his "
                "translation.",
                "backed",
                question="In what year did the Reformation arrive in France?",
            ),
            _E(  # its own verb, dated so in the passage: context, not the asked event's date
                "In 1523, as the Reformation spread, Lefevre published his French translation "
                "of the New Testament [1].",
                "The Reformation finally arrived in France after long struggles with the "
                "papacy. Lefevre published his French translation of the New Testament in "
                "1523.",
                "backed",
                question="In what year did the Reformation arrive in France?",
            ),
        ),
    ),
    Check(
        "echoed",
        "a word of the question the claim repeats that none of the passages it cites holds "
        "(names and figures aside; not of a how-to question): the answer takes the question's "
        "wording for what the files say",
        "'captain' comes from the question: none of the passages says it",
        Effect.FLAGS,
        "en",
        (
            _E(
                "Abercrombie replaced Loudoun as captain in chief in 1758 [1].",
                "In 1758 Abercrombie replaced Loudoun as commander in chief.",
                "flagged",
                question="Who did Abercrombie replace as captain in chief?",
            ),
            _E(  # the question's word named as the question's: "the books in question"
                "The books in question are the Historical and Critical Dictionary, his "
                "masterpiece in several volumes [1].",
                "His masterpiece was the Historical and Critical Dictionary, in several volumes.",
                "backed",
                question="These books became a foundational text for what library?",
            ),
            _E(  # a how-to question's words say what the person wants done, not a premise
                "Call `returning` with both key columns before `insert` [1].",
                "To get the composite primary key back from an insert, call returning with "
                ":id and :hotel_id before insert.",
                "backed",
                question="How do I get Sequel to return both columns of a composite primary key?",
            ),
            _E(
                "Abercrombie replaced Loudoun as commander in chief in 1758 [1].",
                "In 1758 Abercrombie replaced Loudoun as commander in chief.",
                "backed",
                question="Who did Abercrombie replace as commander in chief?",
            ),
            _E(  # a scale word after a figure is the figure's, as the question asks for it
                "Total current liabilities were about $5,466 million [1].",
                "Total current liabilities (in thousands) were 5,466,312.",
                "backed",
                question="What were the total current liabilities (in USD millions)?",
            ),
            _E(  # "year over year" frames the comparison the columns of periods make
                "Developed Rest of World revenues fell 74% year over year [1].",
                "Revenues | Q2 2023 | Q2 2022 | % Change\nDeveloped Rest of World | 1,305 | "
                "5,034 | (74)",
                "backed",
                question="Which region had the biggest drop in year over year revenues?",
            ),
            _E(  # the question's adverb and the time it asks for frame it, as its verb does
                "By that year the mill was usually run by the second shift [1].",
                "In 1852 the second shift ran the mill on most days.",
                "backed",
                question="By which year was the mill usually run by the second shift?",
            ),
            _E(
                "The fighting in North America lasted six years [1].",
                "In North America the fighting went on for six years, from 1754 to 1760.",
                "backed",
                question="How long did the fighting in North America last?",
            ),
        ),
    ),
    Check(
        "unattested",
        "a name the question asks about, which the claim gives a word in one of its slots "
        "and no passage sentence does (nor a pronoun in that slot, where the passage makes the "
        "name a subject or object somewhere), or a name given the "
        "question's own verb in the slot its wh-word asks for, where no passage sentence "
        "uses the verb: the answer takes the question's premise for a fact",
        "the passage never says 'moved' of Kublai, as the question assumes",
        Effect.FLAGS,
        "en",
        (
            _E(
                "Kublai moved the capital to Khanbaliq in 1271 [1].",
                "Kublai proclaimed Khanbaliq the Great Capital of the dynasty. The era name "
                "was changed in 1271.",
                "flagged",
                question="When did Kublai move the capital to Khanbaliq?",
            ),
            _E(
                "Kublai moved the capital to Khanbaliq in 1271 [1].",
                "Kublai moved the capital of the dynasty to Khanbaliq in 1271.",
                "backed",
                question="When did Kublai move the capital to Khanbaliq?",
            ),
            _E(  # the pronoun is the party's: the name is only mentioned in passing
                "Muhammad Qutb blames the colonial powers [1].",
                "The party takes a different view than other Islamists such as Muhammad Qutb. "
                "HT sees 1924 as the turning point. It blames the colonial powers for this.",
                "flagged",
                question="Whom does Muhammad Qutb blame for ending the Islamic system?",
            ),
            _E(  # a pronoun may stand for the name its passage makes a subject
                "Möngke died in 1259 [1].",
                "Möngke led the campaign in the south. He died in 1259.",
                "backed",
                question="When did Möngke die?",
            ),
            _E(  # a noun's modifier worded otherwise, in the one sentence that holds both
                'The chief monasteries in this Norman "renaissance" were Mont-Saint-Michel, '
                "Fécamp and Bec [1].",
                'The chief monasteries taking part in this "renaissance" of Norman art were '
                "Mont-Saint-Michel, Fécamp, and Bec.",
                "backed",
                question="Which monasteries took part in the Norman renaissance of art?",
            ),
            _E(  # a light verb: "made up of" is the passage's "consists of"
                "Under the Standing Orders the Bureau is made up of the Presiding Officer and "
                "one representative of each party with five or more seats [1].",
                "Under the Standing Orders of the Parliament the Bureau consists of the "
                "Presiding Officer and one representative from each political party with five "
                "or more seats.",
                "backed",
                question="Who makes up the Parliamentary Bureau?",
            ),
            _E(  # the verb between left out: "barred from settling in New France"
                "Huguenots led by Jessé de Forest, barred from New France, sailed to North "
                "America in 1624 and settled in the Dutch colony of New Netherland instead [1].",
                "Barred by the government from settling in New France, Huguenots led by Jessé "
                "de Forest sailed to North America in 1624 and settled instead in the Dutch "
                "colony of New Netherland, later part of New York.",
                "backed",
                question="What persons were not allowed to settle in New France?",
            ),
            _E(  # "made … earl": a light verb that makes a name something says who did what
                "Edward the Confessor was made earl by his half-brother Harthacnut [1].",
                "Edward the Confessor returned in 1041 at the invitation of his half-brother "
                "Harthacnut. He made Ralph the Timid earl of Hereford.",
                "flagged",
                question="Who made Edward the Confessor earl?",
            ),
            _E(  # the claim's verb is the passage's noun: "opened" for "upon its opening"
                "The Queen presented the mace when the Assembly officially opened in July "
                "1999 [1].",
                "Presented to the Assembly by the Queen upon its official opening in July "
                "1999, the mace is kept in a glass case.",
                "backed",
                question="What is the Assembly's mace made of, and who presented it?",
            ),
            _E(
                "Henry of Navarre recanted Protestantism when he succeeded to the French "
                "throne [1].",
                "The fighting was quelled in 1598, when Henry of Navarre, having succeeded to "
                "the French throne as Henry IV, and having recanted Protestantism in favour of "
                "Catholicism, issued the Edict of Nantes.",
                "backed",
                question="What religion did Henry renounce upon ascending the throne?",
            ),
            _E(
                "The ACM Symposium was held at the National Physical Laboratory [1].",
                "Donald Davies worked at the National Physical Laboratory. A member of his "
                "team met Lawrence Roberts at the ACM Symposium.",
                "flagged",
                question="Where was the ACM Symposium held?",
            ),
            _E(
                "In North America, the fighting lasted about six years [1].",
                "The fighting on mainland North America was largely concluded in six years, "
                "from 1754 to 1760.",
                "backed",
                question="How long did the fighting last?",
            ),
            _E(
                "Hugues Capet was Protestant [1].",
                "The name was derived from Hugues Capet, king of France, who reigned long "
                "before the Reformation. He was regarded by the Gallicans and Protestants as "
                "a noble man.",
                "flagged",
                question="What religion was Hugues Capet?",
            ),
            _E(
                "Möngke Khan died in 1259 without a successor [1].",
                "Möngke Khan led a campaign against the Song dynasty. He died in 1259 without "
                "a successor.",
                "backed",
                question="When did Möngke Khan die?",
            ),
        ),
    ),
)
