"""Stage ``read`` (core/read): ``page_text``, each page's text raw and cleaned, and
``page_images``, the page PNGs the vision stage reads."""

from typing import Any

import dagster as dg
from pydantic import Field

from legco_assets.core import pipeline
from legco_assets.core.storage import shown

from ..lineage import upstream_metadata
from ..resources import LegcoSettings, LLMResource
from .common import paper_asset, written_version
from .sources import source_document


class PageImagesConfig(dg.Config):
    dpi: int | None = Field(
        default=None,
        ge=36,
        le=600,
        description="Render resolution of page PNGs. Unset: PAGE_IMAGE_DPI (150).",
    )
    all_pages: bool = Field(
        default=False,
        description="Render every page; by default only what the vision stage needs (page 1 otherwise).",
    )


@paper_asset(
    "ingest",
    {"python"},
    "4",
    deps=[source_document],
    description="Text per page: raw as extracted and cleaned "
    "(footers, page numbers, running headers removed); text printed off the page or "
    "invisibly is left out and counted (off_page_chars).",
)
def page_text(
    context: dg.AssetExecutionContext, legco: LegcoSettings, llm: LLMResource
) -> dg.MaterializeResult:
    settings = legco.settings()
    extracted = pipeline.stage_page_text(settings, context.partition_key, llm.client(settings))
    chars = [len(p.cleaned) for p in extracted.pages]
    off_page = {p.number: p.off_page_chars for p in extracted.pages if p.off_page_chars}
    return dg.MaterializeResult(
        metadata={
            "extractor": extracted.extractor,
            "pages": len(extracted.pages),
            "characters": sum(chars),
            "characters_per_page": dg.MetadataValue.json(dict(enumerate(chars, start=1))),
            # characters in the text layer a reader cannot see (off the crop box, render
            # mode 3): left out of the text, counted so the reader knows something was
            "off_page_chars": sum(off_page.values()),
            "off_page_chars_per_page": dg.MetadataValue.json(off_page),
            "page_1_preview": dg.MetadataValue.md("```\n" + extracted.pages[0].cleaned[:600] + "\n```"),
            **upstream_metadata(context),
        },
        data_version=written_version(settings, context.partition_key, "page_text.json", "transcription.json"),
    )


@paper_asset(
    "ingest",
    {"png"},
    "1",
    deps=[source_document],
    description="PNG per page (pypdfium2) for the vision stage; "
    "page 1 only unless vision or all_pages is on.",
)
def page_images(
    context: dg.AssetExecutionContext, config: PageImagesConfig, legco: LegcoSettings
) -> dg.MaterializeResult:
    settings = legco.settings()
    all_pages = config.all_pages or (settings.llm_enabled and settings.qa_vision_enabled)
    dpi = settings.image_dpi if config.dpi is None else config.dpi
    paths = pipeline.stage_page_images(settings, context.partition_key, dpi, all_pages)
    metadata: dict[str, Any] = {"images": len(paths), "dpi": dpi, "all_pages": all_pages}
    if paths:
        metadata["first_page_image"] = dg.MetadataValue.path(shown(paths[0]))
    metadata.update(upstream_metadata(context))
    return dg.MaterializeResult(
        metadata=metadata, data_version=written_version(settings, context.partition_key, "images")
    )
