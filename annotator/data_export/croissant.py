"""Croissant 1.0 metadata of a published dataset (``croissant.json``): the MLCommons format dataset tracks
ask for. One ``cr:FileObject`` per Parquet file (with its SHA-256) and one ``cr:RecordSet`` per configuration whose
fields are typed from the file's Arrow schema; ``mlcroissant`` reads it (tests/services/test_publish.py). The
creators, the publisher and the Responsible-AI properties (``rai:``, Croissant RAI 1.0) say who made the data and
what it is; what the project cannot know is a placeholder starting ``TO FILL``, as in the card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

CONFORMS_TO = "http://mlcommons.org/croissant/1.0"

#: The JSON-LD context of the Croissant 1.0 specification's examples.
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


@dataclass(frozen=True)
class ConfigFile:
    """One configuration's file: its name (``IT``, ``discarded``), path in the folder, SHA-256, schema, rows."""

    config: str
    path: str
    sha256: str
    schema: pa.Schema
    rows: int
    description: str


def _data_type(arrow_type: pa.DataType) -> tuple[str, bool]:
    """Croissant ``dataType`` and ``repeated`` of an Arrow column type."""
    repeated = pa.types.is_list(arrow_type)
    value = arrow_type.value_type if repeated else arrow_type
    if pa.types.is_integer(value):
        return "sc:Integer", repeated
    if pa.types.is_boolean(value):
        return "sc:Boolean", repeated
    if pa.types.is_floating(value):
        return "sc:Float", repeated
    return "sc:Text", repeated


def _record_set(file: ConfigFile, descriptions: Mapping[str, str]) -> dict[str, Any]:
    fields = []
    for column in file.schema:
        data_type, repeated = _data_type(column.type)
        fields.append(
            {
                "@type": "cr:Field",
                "@id": f"{file.config}/{column.name}",
                "name": column.name,
                "description": descriptions.get(column.name, column.name),
                "dataType": data_type,
                **({"repeated": True} if repeated else {}),
                "source": {"fileObject": {"@id": f"{file.config}-parquet"}, "extract": {"column": column.name}},
            }
        )
    return {
        "@type": "cr:RecordSet",
        "@id": file.config,
        "name": file.config,
        "description": file.description,
        "field": fields,
    }


def croissant_document(
    *,
    name: str,
    description: str,
    licence_url: str,
    version: str,
    date_published: str,
    cite_as: str,
    url: str | None,
    files: Sequence[ConfigFile],
    field_descriptions: Mapping[str, str],
    creators: Sequence[str] = (),
    publisher: str | None = None,
    rai: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``croissant.json`` document (pure: the files' digests and schemas are given). Without a ``url`` (no Hub
    id given) the document has none: a placeholder is not a URL."""
    people = [{"@type": "sc:Person", "name": name} for name in creators] or [
        {"@type": "sc:Person", "name": "TO FILL: the authors (annotator publish --author)"}
    ]
    if publisher:
        organisation = {"@type": "sc:Organization", "name": publisher, "url": f"https://huggingface.co/{publisher}"}
    else:
        organisation = {"@type": "sc:Organization", "name": "TO FILL: the publisher (annotator publish --hub-id)"}
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": name,
        "description": description,
        "conformsTo": CONFORMS_TO,
        "license": licence_url,
        **({"url": url} if url else {}),
        "version": version,
        "datePublished": date_published,
        "citeAs": cite_as,
        "creator": people,
        "publisher": organisation,
        **{f"rai:{key}": value for key, value in (rai or {}).items()},
        "distribution": [
            {
                "@type": "cr:FileObject",
                "@id": f"{file.config}-parquet",
                "name": f"{file.config}-parquet",
                "description": f"{file.description} ({file.rows} rows)",
                "contentUrl": file.path,
                "encodingFormat": "application/x-parquet",
                "sha256": file.sha256,
            }
            for file in files
        ],
        "recordSet": [_record_set(file, field_descriptions) for file in files],
    }
