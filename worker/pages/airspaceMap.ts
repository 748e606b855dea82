import type { MapLayers } from "../domain/map/layers";
import type { Frame } from "../domain/map/view";
import type { MapView } from "../services/frontPage";
import { mapLegend, renderLegend, renderMapSvg } from "./map/svg";

/**
 * The airspace map (`/map`): the shared map drawn by the server around any point, with links to pan
 * and zoom that work without scripts; the script lets the map be dragged and, on a click, shows the
 * airspace status there as `GET /status/v2/point` gives it.
 */

export interface AirspaceMapModel {
  view: MapView;
  layers: MapLayers;
  frame: Frame;
  span: { min: number; max: number };
}

export function renderAirspaceMap(m: AirspaceMapModel): string {
  const { view, frame } = m;
  const svg = renderMapSvg({
    layers: m.layers,
    area: "",
    markers: [],
    id: "map",
    title: `Airspace around ${view.latitude.toFixed(4)}, ${view.longitude.toFixed(4)}`,
    track: true,
    scaleId: "scale",
  });
  const legend = renderLegend(mapLegend(m.layers).slice(1));
  const dLat = (frame.box.maxLat - frame.box.minLat) / 2;
  const dLng = (frame.box.maxLng - frame.box.minLng) / 2;
  const at = (lat: number, lng: number, span = view.spanKm) =>
    `/map?latitude=${lat.toFixed(5)}&amp;longitude=${lng.toFixed(5)}&amp;span_km=${+span.toFixed(3)}`;
  const zoomIn = Math.max(m.span.min, view.spanKm / 2);
  const zoomOut = Math.min(m.span.max, view.spanKm * 2);
  const model = JSON.stringify({
    view,
    projection: { x0: frame.x0, y0: frame.y0, scale: frame.scale, xScale: frame.xScale },
    size: { width: frame.width, height: frame.height },
    span: m.span,
  }).replace(/</g, "\\u003c");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>Airspace map</title><style>
:root{color-scheme:light dark;--muted:#5b6470;--card:#fff;--bg:#f6f7f9}
@media (prefers-color-scheme:dark){:root{--muted:#9aa4b2;--card:#181c22;--bg:#0f1216}}
body{margin:0;font:15px/1.4 system-ui,sans-serif;background:var(--bg)}header{padding:10px 16px;display:flex;flex-wrap:wrap;gap:6px 16px;align-items:baseline}
h1{font-size:18px;margin:0}main{display:grid;gap:12px;padding:0 12px 16px;grid-template-columns:minmax(0,3fr) minmax(0,1fr)}
@media (max-width:800px){main{grid-template-columns:1fr}}section{background:var(--card);border-radius:8px;padding:10px 12px;box-shadow:0 1px 2px #0002}
h2{font-size:14px;margin:0 0 6px;color:var(--muted)}svg{width:100%;height:auto;display:block;touch-action:none;cursor:grab}
nav a{display:inline-block;min-width:2em;text-align:center;padding:2px 8px;border:1px solid #8886;border-radius:4px;text-decoration:none;margin:2px}
form{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-top:8px}input{width:8em}
.green{color:#1a7f37}.yellow{color:#9a6700}.orange{color:#c2410c}.red{color:#b42318}#advisories{padding-left:18px;margin:4px 0}</style></head><body>
<header><h1>Airspace map</h1><a href="/">Windsock</a><span class="legend">around ${view.latitude.toFixed(4)}, ${view.longitude.toFixed(4)} · ${+view.spanKm.toFixed(3)} km across · the next hour</span></header>
<main><section aria-labelledby="map-h"><h2 id="map-h">Drag to move, click for the status there</h2>${svg}
<nav aria-label="Move and zoom"><a href="${at(view.latitude + dLat, view.longitude)}" title="north">↑</a><a href="${at(view.latitude - dLat, view.longitude)}" title="south">↓</a><a href="${at(view.latitude, view.longitude - dLng)}" title="west">←</a><a href="${at(view.latitude, view.longitude + dLng)}" title="east">→</a><a id="zoom-in" href="${at(view.latitude, view.longitude, zoomIn)}" title="zoom in">+</a><a id="zoom-out" href="${at(view.latitude, view.longitude, zoomOut)}" title="zoom out">−</a></nav>
<form method="get" action="/map"><label>Latitude <input name="latitude" inputmode="decimal" value="${view.latitude.toFixed(5)}"></label><label>Longitude <input name="longitude" inputmode="decimal" value="${view.longitude.toFixed(5)}"></label><input type="hidden" name="span_km" value="${view.spanKm}"><button>Go</button></form>
${legend}</section>
<section aria-labelledby="status-h" id="status-panel"><h2 id="status-h">Status at a point</h2><p id="status">Click the map to see what a flight there would be told: the advisories and their colors, as <code>GET /status/v2/point</code> gives them.</p><ul id="advisories"></ul></section></main>
<script type="application/json" id="model">${model}</script><script>${SCRIPT}</script></body></html>`;
}

/** Drag to pan (a new view on release), click for the status; plain ES2020. */
const SCRIPT = `
(function(){
"use strict";
var model=JSON.parse(document.getElementById("model").textContent),svg=document.getElementById("map");
var p=model.projection;
function lngLat(evt){var r=svg.getBoundingClientRect(),x=(evt.clientX-r.left)/r.width*model.size.width,y=(evt.clientY-r.top)/r.height*model.size.height;
 return{longitude:(x/p.scale+p.x0)/p.xScale,latitude:-(y/p.scale+p.y0)}}
function go(lat,lng,span){location.assign("/map?latitude="+lat.toFixed(5)+"&longitude="+lng.toFixed(5)+"&span_km="+(+span.toFixed(3)))}
var start=null,moved=false;
svg.addEventListener("pointerdown",function(e){start={x:e.clientX,y:e.clientY};moved=false;svg.setPointerCapture(e.pointerId)});
svg.addEventListener("pointermove",function(e){if(!start)return;var dx=e.clientX-start.x,dy=e.clientY-start.y;if(Math.hypot(dx,dy)>5)moved=true;
 if(moved)svg.style.transform="translate("+dx+"px,"+dy+"px)"});
svg.addEventListener("pointerup",function(e){if(!start)return;var s=start;start=null;
 if(moved){var r=svg.getBoundingClientRect(),k=model.size.width/r.width,dx=(e.clientX-s.x)*k/p.scale/p.xScale,dy=(e.clientY-s.y)*k/p.scale;
  go(model.view.latitude-dy,model.view.longitude-dx,model.view.spanKm);return}
 show(lngLat(e),e)});
svg.addEventListener("wheel",function(e){e.preventDefault();var span=Math.min(model.span.max,Math.max(model.span.min,model.view.spanKm*(e.deltaY>0?2:0.5)));
 if(span!==model.view.spanKm)go(model.view.latitude,model.view.longitude,span)},{passive:false});
var NS="http://www.w3.org/2000/svg";
function show(at){var track=document.getElementById("track");while(track.firstChild)track.removeChild(track.firstChild);
 var x=(at.longitude*p.xScale-p.x0)*p.scale,y=(-at.latitude-p.y0)*p.scale,c=document.createElementNS(NS,"circle");
 c.setAttribute("cx",x);c.setAttribute("cy",y);c.setAttribute("r",6);c.setAttribute("fill","none");c.setAttribute("stroke","#111");c.setAttribute("stroke-width",2.5);c.id="clicked";track.appendChild(c);
 var status=document.getElementById("status"),list=document.getElementById("advisories");status.textContent="Asking…";list.textContent="";
 fetch("/map/status?latitude="+at.latitude.toFixed(6)+"&longitude="+at.longitude.toFixed(6),{headers:{accept:"application/json"}}).then(function(r){return r.json()}).then(function(body){
  if(body.status!=="success"){status.textContent=(body.data&&body.data.message)||body.message||"No status";return}
  var d=body.data;status.className=d.advisory_color;
  status.textContent=at.latitude.toFixed(5)+", "+at.longitude.toFixed(5)+": "+d.advisory_color+(d.advisories.length?" ("+d.advisories.length+" advisor"+(d.advisories.length===1?"y":"ies")+")":", no advisories");
  d.advisories.forEach(function(a){var li=document.createElement("li");li.className=a.color;li.textContent=a.color+": "+(a.name||a.type)+" ("+a.type.replace(/_/g," ")+")";list.appendChild(li)})
 }).catch(function(){status.textContent="The status could not be read: try again"})}
})();`;

/** Every inline script the page runs, as its text: the Content-Security-Policy allows each by its hash. */
export const AIRSPACE_MAP_SCRIPTS: readonly string[] = [SCRIPT];
