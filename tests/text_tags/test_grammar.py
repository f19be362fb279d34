"""The text tag grammar: DocuSeal's and Documenso's tags read by one parser (docs/text-tags.md)."""

from __future__ import annotations

import pytest

from templates_app.engine.tag_grammar import Tag, TagSyntaxError, parse_tag


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{name}}", Tag(name="name", type="shortText", dialect="docuseal")),
        ("{{Tenant Name}}", Tag(name="Tenant Name", type="shortText", dialect="docuseal")),
        (
            "{{Signature;role=Tenant}}",
            Tag(name="Signature", type="signature", dialect="docuseal", role="Tenant"),
        ),
        (
            "{{date;type=date;signer=1}}",
            Tag(name="date", type="date", dialect="docuseal", signer=1),
        ),
        ("{{initials;type=initial}}", Tag(name="initials", type="initial", dialect="docuseal")),
        ("{{agree;type=checkbox}}", Tag(name="agree", type="checkbox", dialect="docuseal")),
        ("{{type=checkbox}}", Tag(name="", type="checkbox", dialect="docuseal")),
        (
            "{{DOB;type=date;role=Customer;required=false}}",
            Tag(name="DOB", type="date", dialect="docuseal", role="Customer", required=False),
        ),
        ("{{Date;type=datenow}}", Tag(name="Date", type="signatureDate", dialect="docuseal")),
        (
            "{{Sign;type=signature;width=150;height=40}}",
            Tag(name="Sign", type="signature", dialect="docuseal", width=150, height=40),
        ),
        (
            "{{Plan;readonly=true;default=Gold}}",
            Tag(name="Plan", type="shortText", dialect="docuseal", read_only=True, default="Gold"),
        ),
        # DocuSeal's looks are read and left to the service.
        (
            "{{Notes;type=text;font=Courier;color=blue;condition=Plan:Gold}}",
            Tag(name="Notes", type="shortText", dialect="docuseal"),
        ),
        # The service's own type names, in either dialect.
        ("{{Total;type=dollar}}", Tag(name="Total", type="dollar", dialect="docuseal")),
        ("{{signerName, r2}}", Tag(name="", type="signerName", dialect="documenso", signer=2)),
        # Documenso's.
        ("{{signature, r1}}", Tag(name="", type="signature", dialect="documenso", signer=1)),
        ("{{SIGNATURE,R1}}", Tag(name="", type="signature", dialect="documenso", signer=1)),
        ("{{initials, r2}}", Tag(name="", type="initial", dialect="documenso", signer=2)),
        ("{{date, r1}}", Tag(name="", type="signatureDate", dialect="documenso", signer=1)),
        ("{{name, r1}}", Tag(name="", type="signerName", dialect="documenso", signer=1)),
        ("{{email, r2}}", Tag(name="", type="email", dialect="documenso", signer=2)),
        (
            "{{text, r1, required=true, label=Company Name}}",
            Tag(name="", type="shortText", dialect="documenso", signer=1, label="Company Name"),
        ),
        (
            "{{text,r1,required=false,textAlign=right,fontSize=50}}",
            Tag(
                name="",
                type="shortText",
                dialect="documenso",
                signer=1,
                required=False,
                font_size=50,
            ),
        ),
        ("{{checkbox, r3, readOnly=true}}", Tag(name="", type="checkbox", dialect="documenso", signer=3, read_only=True)),
        ("{{number}}", Tag(name="number", type="number", dialect="docuseal")),
        # A comma in a name that is no type word: DocuSeal's, a text field of that name.
        ("{{Smith, John}}", Tag(name="Smith, John", type="shortText", dialect="docuseal")),
        # Spaces and line breaks inside a tag are one space (a tag broken over lines).
        (
            "{{ Signature ;  role = Tenant }}",
            Tag(name="Signature", type="signature", dialect="docuseal", role="Tenant"),
        ),
    ],
)  # fmt: skip
def test_both_dialects_read(text: str, expected: Tag) -> None:
    assert parse_tag(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{{}}", "The tag is empty."),
        ("{{  }}", "The tag is empty."),
        ("{{bad;type=zzz}}", '"zzz" is not a field type.'),
        ("{{x;type=radio;options=A,B}}", 'Fields of type "radio" cannot be placed by a tag.'),
        ("{{dropdown, r1}}", 'Fields of type "dropdown" cannot be placed by a tag.'),
        ("{{x;required=maybe}}", 'required must be true or false, not "maybe".'),
        ("{{x;signer=0}}", 'signer must be a number from 1, not "0".'),
        ("{{x;signer=first}}", 'signer must be a number from 1, not "first".'),
        ("{{x;width=wide}}", 'width must be a number of points, not "wide".'),
        ("{{x;colour=red}}", '"colour" is not an attribute of a tag.'),
        ("{{x;type=date;type=text}}", "type is given twice."),
        ("{{a;b}}", "The name comes first, once; then key=value attributes."),
        ("{{type=text;Name}}", "The name comes first, once; then key=value attributes."),
        ("{{x;;type=text}}", 'An empty part between ";".'),
        ("{{x;=text}}", '"=text" has no attribute name before "=".'),
        ("{{x;role=}}", "role must name a role."),
        ("{{signature, r1, big}}", '"big" is neither a recipient (r1, r2...) nor key=value.'),
        ("{{a {{b}}", "A tag holds no braces of its own: is a }} missing?"),
        ("{{" + "x" * 101 + "}}", "A name is at most 100 characters."),
        ("{name}", "A tag is written {{...}}."),
    ],
)
def test_malformed_tags_say_why(text: str, message: str) -> None:
    with pytest.raises(TagSyntaxError) as raised:
        parse_tag(text)
    assert str(raised.value) == message
